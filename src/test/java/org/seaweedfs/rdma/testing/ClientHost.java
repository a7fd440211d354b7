package org.seaweedfs.rdma.testing;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The test's hands on a cluster host: a {@link ClientHostMain} in that host's namespace, asked one request at a
 * time. Its stderr goes to a log file.
 */
public final class ClientHost implements AutoCloseable {

    public final String host;
    private final Process process;
    private final BufferedReader answers;
    private final OutputStream requests;

    public ClientHost(NetnsCluster cluster, String host, Path log) {
        this.host = host;
        List<String> command = HostProcess.command(ClientHostMain.class.getName());
        try {
            process = new ProcessBuilder(cluster.on(host, command))
                    .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        requests = process.getOutputStream();
        answer();
    }

    /** GET {@code url} from this host: status, headers (lower-case names), sha256 and length of the body. */
    public JsonObject get(String url) {
        return ask(new JsonObject().put("op", "get").put("url", url));
    }

    /** GET {@code url} from this host, its body parsed as a JSON object whatever the status (/status, /health). */
    public JsonObject getJson(String url) {
        JsonObject answer = ask(new JsonObject().put("op", "get").put("url", url).put("body", true));
        try {
            return new JsonObject(answer.getString("body"));
        } catch (io.vertx.core.json.DecodeException e) {
            throw new AssertionError("GET " + url + " from " + host + " is no JSON object: " + answer, e);
        }
    }

    /** GET {@code url} from this host: the answer of {@link #get} with its body as text. */
    public JsonObject getText(String url) {
        return ask(new JsonObject().put("op", "get").put("url", url).put("body", true));
    }

    /** Joins the clustered event bus as a member at this host's {@code address}. */
    public void join(String address, String... members) {
        ask(new JsonObject().put("op", "join").put("host", address).put("members", new JsonArray(List.of(members))));
    }

    /** Reads a needle over the clustered event bus: sha256, length, source, etag; or error and code. */
    public JsonObject busRead(String fid) {
        return ask(new JsonObject().put("op", "bus-read").put("fid", fid));
    }

    private synchronized JsonObject ask(JsonObject request) {
        try {
            requests.write((request.encode() + "\n").getBytes(StandardCharsets.UTF_8));
            requests.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("the client on " + host + " is gone", e);
        }
        JsonObject answer = answer();
        if (answer.containsKey("error") && !answer.containsKey("code")) {
            throw new AssertionError("the client on " + host + " failed " + request + ": " + answer.getString("error"));
        }
        return answer;
    }

    private JsonObject answer() {
        try {
            for (String line; (line = answers.readLine()) != null; ) {
                if (line.startsWith(ClientHostMain.ANSWER)) {
                    return new JsonObject(line.substring(ClientHostMain.ANSWER.length()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new AssertionError("the client on " + host + " exited");
    }

    @Override
    public void close() {
        try {
            requests.close();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
