package org.seaweedfs.rdma.testing;

import static org.seaweedfs.rdma.testing.Await.await;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Supplier;
import org.seaweedfs.rdma.client.Needle;
import org.seaweedfs.rdma.client.NeedleClient;
import org.seaweedfs.rdma.client.NeedleException;
import org.seaweedfs.rdma.cluster.ClusteredVertx;
import org.seaweedfs.rdma.config.ClusterConfig;
import org.seaweedfs.rdma.config.HostPort;

/**
 * A client on a cluster's host, driven by the test through stdin and stdout (a test JVM cannot enter a network
 * namespace): one JSON request a line in, one answer a line out, prefixed {@value #ANSWER} (anything else on stdout is
 * a library's log). Answers carry a body's SHA-256 and length, not the body.
 * <pre>
 *   {"op":"get","url":...,"body":false}             {"status","headers":{lower-case name: value},"sha256","length"}
 *                                                   and "body" (as text) when asked for
 *   {"op":"join","host":own address,"members":[h:p]} {"joined":true}  (a member of the clustered event bus)
 *   {"op":"bus-read","fid":...}                     {"sha256","length","source","etag"} | {"error","code"}
 * </pre>
 * Failures answer {@code {"error": text}}.
 */
public final class ClientHostMain {

    static final String ANSWER = "@@ ";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private Vertx member;

    private ClientHostMain() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
                StandardCharsets.UTF_8);
        ClientHostMain client = new ClientHostMain();
        out.println(ANSWER + new JsonObject().put("ready", true).encode());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            JsonObject answer;
            try {
                answer = client.handle(new JsonObject(line));
            } catch (RuntimeException | AssertionError e) {
                answer = new JsonObject().put("error", String.valueOf(e));
            }
            out.println(ANSWER + answer.encode());
        }
        if (client.member != null) {
            await(client.member.close());
        }
        System.exit(0);
    }

    private JsonObject handle(JsonObject request) throws Exception {
        return switch (request.getString("op", "")) {
            case "get" -> get(request.getString("url"), request.getBoolean("body", false));
            case "join" -> join(request);
            case "bus-read" -> busRead(request.getString("fid"));
            default -> throw new IllegalArgumentException("unknown op in " + request);
        };
    }

    private JsonObject get(String url, boolean withBody) throws Exception {
        HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
        JsonObject headers = new JsonObject();
        response.headers().map().forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), v.get(0)));
        JsonObject answer = new JsonObject().put("status", response.statusCode()).put("headers", headers)
                .put("sha256", sha256(response.body())).put("length", response.body().length);
        return withBody ? answer.put("body", new String(response.body(), StandardCharsets.UTF_8)) : answer;
    }

    private JsonObject join(JsonObject request) {
        List<HostPort> members = request.getJsonArray("members").stream().map(m -> HostPort.parse((String) m)).toList();
        member = await(ClusteredVertx.create(new ClusterConfig(true, request.getString("host"), 0, members),
                new VertxOptions(), null));
        return new JsonObject().put("joined", true);
    }

    private JsonObject busRead(String fid) {
        NeedleClient client = NeedleClient.overEventBus(member);
        try {
            Needle n = onContext(() -> client.read(fid));
            byte[] body = n.body().getBytes();
            return new JsonObject().put("sha256", sha256(body)).put("length", body.length).put("source", n.source())
                    .put("etag", n.etag());
        } catch (RuntimeException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof NeedleException ne) {
                    return new JsonObject().put("error", ne.kind().name()).put("code", ne.code());
                }
            }
            throw e;
        }
    }

    private <T> T onContext(Supplier<Future<T>> call) {
        Promise<T> result = Promise.promise();
        member.getOrCreateContext().runOnContext(v -> call.get().onComplete(result));
        return await(result.future());
    }

    /** Lower-case hex of the bytes' SHA-256. */
    public static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
