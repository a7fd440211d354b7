package org.seaweedfs.rdma.tls;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@code [https.client]} table of SeaweedFS's {@code security.toml}, which SeaweedFS's own clients (mount, S3
 * gateway, filer.copy) read to speak HTTPS to masters and volume servers: {@code enabled}; {@code ca}, the CA that
 * signed the servers' certificates (empty: the JVM's trust store); {@code cert} and {@code key}, a client certificate
 * for servers whose {@code [https.volume]}/{@code [https.master]} {@code ca} makes them require one (both or
 * neither); {@code insecure_skip_verify}. Relative paths count from the file's directory, as SeaweedFS resolves
 * them when it loads a security file named on its command line. Other tables are not read.
 */
public record HttpsClientSection(boolean enabled, Path ca, Path cert, Path key, boolean insecureSkipVerify) {

    /**
     * Reads and checks the table (blocking). An absent table is {@code enabled = false}.
     *
     * @throws IllegalArgumentException saying what is wrong with the file
     */
    public static HttpsClientSection read(Path file) {
        JsonNode root;
        try {
            root = new TomlMapper().readTree(Files.readAllBytes(file));
        } catch (JacksonException e) {
            throw new IllegalArgumentException("not valid TOML: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new IllegalArgumentException(TlsFiles.why(e));
        }
        JsonNode table = root == null ? null : root.path("https").path("client");
        if (table == null || table.isMissingNode()) {
            return new HttpsClientSection(false, null, null, null, false);
        }
        if (!table.isObject()) {
            throw new IllegalArgumentException("[https.client] is not a table");
        }
        Path dir = file.toAbsolutePath().getParent();
        Path cert = path(dir, table, "cert");
        Path key = path(dir, table, "key");
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("[https.client] sets " + (cert == null ? "key" : "cert")
                    + " without " + (cert == null ? "cert" : "key") + ": a client certificate needs both");
        }
        return new HttpsClientSection(bool(table, "enabled"), path(dir, table, "ca"), cert, key,
                bool(table, "insecure_skip_verify"));
    }

    /** Viper's reading: a TOML boolean, or the strings true/false. */
    private static boolean bool(JsonNode table, String name) {
        JsonNode v = table.path(name);
        if (v.isMissingNode() || v.isNull()) {
            return false;
        }
        if (v.isBoolean()) {
            return v.booleanValue();
        }
        if (v.isTextual() && (v.textValue().equalsIgnoreCase("true") || v.textValue().equalsIgnoreCase("false"))) {
            return Boolean.parseBoolean(v.textValue());
        }
        throw new IllegalArgumentException("[https.client] " + name + " must be true or false, got " + v);
    }

    /** A file name, relative to {@code dir} unless absolute; null when empty or absent. */
    private static Path path(Path dir, JsonNode table, String name) {
        JsonNode v = table.path(name);
        if (v.isMissingNode() || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException("[https.client] " + name + " must be a file name, got " + v);
        }
        String text = v.textValue().strip();
        return text.isEmpty() ? null : dir.resolve(text);
    }
}
