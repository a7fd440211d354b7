package org.seaweedfs.rdma.volume.ec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import org.seaweedfs.rdma.volume.SuperBlock;
import org.seaweedfs.rdma.volume.VolumeFormatException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * An EC volume's {@code .vif}: the protobuf-JSON form of SeaweedFS's {@code VolumeInfo} (volume_server.proto). Only
 * what reading needs is kept: {@code version} (the needle version), {@code datFileSize} (the original {@code .dat}'s
 * length, an int64 written as a string; 0 or absent on volumes encoded before the field existed) and the optional
 * {@code ecShardConfig {dataShards, parityShards}} (absent means 10 + 4). Both the JSON names and the proto field
 * names are accepted, int64 as a string or a number, as protojson does; other fields are ignored.
 *
 * @param hasShardConfig whether the file carried {@code ecShardConfig} (written back only then)
 */
public record EcVolumeInfo(int version, long datFileSize, int dataShards, int parityShards, boolean hasShardConfig) {

    /** Larger .vif files are refused: a real one is a few hundred bytes. */
    public static final int MAX_FILE_SIZE = 64 * 1024;

    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(16).maxStringLength(MAX_FILE_SIZE)
                    .build())
            .build();

    public EcVolumeInfo {
        if (version < SuperBlock.VERSION_1 || version > SuperBlock.VERSION_3) {
            throw new IllegalArgumentException("version must be 1..3, got " + version);
        }
        if (datFileSize < 0) {
            throw new IllegalArgumentException("datFileSize must not be negative: " + datFileSize);
        }
        new EcLayout(dataShards, parityShards, EcLayout.LARGE_BLOCK, EcLayout.SMALL_BLOCK);
    }

    /** What SeaweedFS's encoder writes today: the counts always recorded. */
    public static EcVolumeInfo of(int version, long datFileSize, int dataShards, int parityShards) {
        return new EcVolumeInfo(version, datFileSize, dataShards, parityShards, true);
    }

    /** The layout these counts give, with the real block sizes. */
    public EcLayout layout() {
        return EcLayout.of(dataShards, parityShards);
    }

    /** The same counts over other block sizes (tests). */
    public EcLayout layout(long largeBlockSize, long smallBlockSize) {
        return new EcLayout(dataShards, parityShards, largeBlockSize, smallBlockSize);
    }

    public static EcVolumeInfo read(Path vif) throws IOException {
        long size = Files.size(vif);
        if (size > MAX_FILE_SIZE) {
            throw new VolumeFormatException(vif.toString(), 0, "length", size + " bytes, more than the " + MAX_FILE_SIZE
                    + " a .vif may have");
        }
        return parse(Files.readAllBytes(vif), vif.toString());
    }

    /**
     * @throws VolumeFormatException naming {@code source} and the field, when the JSON is malformed or a field is
     *                               missing, of the wrong type or out of range
     */
    public static EcVolumeInfo parse(byte[] json, String source) {
        Integer version = null;
        long datFileSize = 0;
        int dataShards = EcLayout.DEFAULT_DATA_SHARDS;
        int parityShards = EcLayout.DEFAULT_PARITY_SHARDS;
        boolean hasConfig = false;
        try (JsonParser p = JSON.createParser(json)) {
            expect(p.nextToken() == JsonToken.START_OBJECT, source, "(document)", "is not a JSON object");
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                p.nextToken();
                switch (name) {
                    case "version" -> version = (int) integer(p, source, "version", 0, 0xFFFF_FFFFL);
                    case "datFileSize",
                            "dat_file_size" -> datFileSize = integer(p, source, "datFileSize", 0, Long.MAX_VALUE);
                    case "ecShardConfig", "ec_shard_config" -> {
                        if (p.currentToken() == JsonToken.VALUE_NULL) {
                            continue;
                        }
                        expect(p.currentToken() == JsonToken.START_OBJECT, source, "ecShardConfig", "is not an object");
                        Integer data = null;
                        Integer parity = null;
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String inner = p.currentName();
                            p.nextToken();
                            switch (inner) {
                                case "dataShards", "data_shards" ->
                                        data =
                                                (int) integer(p, source, "ecShardConfig.dataShards", 1,
                                                EcLayout.MAX_SHARDS);
                                case "parityShards", "parity_shards" ->
                                        parity =
                                                (int) integer(p, source, "ecShardConfig.parityShards", 1,
                                                EcLayout.MAX_SHARDS);
                                default -> p.skipChildren();
                            }
                        }
                        expect(data != null, source, "ecShardConfig.dataShards", "is missing");
                        expect(parity != null, source, "ecShardConfig.parityShards", "is missing");
                        expect(data + parity <= EcLayout.MAX_SHARDS, source, "ecShardConfig",
                                data + " + " + parity + " shards, more than " + EcLayout.MAX_SHARDS);
                        dataShards = data;
                        parityShards = parity;
                        hasConfig = true;
                    }
                    default -> p.skipChildren();
                }
            }
            expect(p.currentToken() == JsonToken.END_OBJECT, source, "(document)", "does not end with the object");
            expect(p.nextToken() == null, source, "(document)", "has content after the object");
        } catch (JsonProcessingException e) {
            throw new VolumeFormatException(source, e.getLocation() == null ? 0
                    : Math.max(0, e.getLocation().getByteOffset()),
                    "(document)", "malformed JSON: " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        expect(version != null, source, "version", "is missing");
        expect(version >= SuperBlock.VERSION_1 && version <= SuperBlock.VERSION_3, source, "version",
                version + " is not a needle version (1..3)");
        return new EcVolumeInfo(version, datFileSize, dataShards, parityShards, hasConfig);
    }

    private static long integer(JsonParser p, String source, String field, long min, long max) throws IOException {
        long value;
        JsonToken token = p.currentToken();
        try {
            if (token == JsonToken.VALUE_NUMBER_INT) {
                expect(p.getNumberType() == JsonParser.NumberType.INT || p.getNumberType()
                        == JsonParser.NumberType.LONG,
                        source, field, p.getText() + " is out of range");
                value = p.getLongValue();
            } else if (token == JsonToken.VALUE_STRING) {
                value = Long.parseLong(p.getText());
            } else {
                throw new VolumeFormatException(source, 0, field, "is not an integer (" + token + ")");
            }
        } catch (NumberFormatException e) {
            throw new VolumeFormatException(source, 0, field, "'" + p.getText() + "' is not an integer", e);
        }
        expect(value >= min && value <= max, source, field, value + " is outside " + min + ".." + max);
        return value;
    }

    private static void expect(boolean ok, String source, String field, String problem) {
        if (!ok) {
            throw new VolumeFormatException(source, 0, field, problem);
        }
    }

    /**
     * The JSON SeaweedFS writes for an EC volume (protojson, every field emitted, two-space indent), with
     * {@code encodeTsNs} the encode time in nanoseconds.
     */
    public byte[] toJson(long encodeTsNs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            DefaultPrettyPrinter pretty = new DefaultPrettyPrinter(Separators.createDefaultInstance()
                    .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                    .withArrayEmptySeparator("")
                    .withObjectEmptySeparator(""))
                    .withObjectIndenter(new DefaultIndenter("  ", "\n"));
            g.setPrettyPrinter(pretty);
            g.writeStartObject();
            g.writeArrayFieldStart("files");
            g.writeEndArray();
            g.writeNumberField("version", version);
            g.writeStringField("replication", "");
            g.writeNumberField("bytesOffset", 0);
            g.writeStringField("datFileSize", Long.toString(datFileSize));
            g.writeStringField("expireAtSec", "0");
            g.writeBooleanField("readOnly", false);
            if (hasShardConfig) {
                g.writeObjectFieldStart("ecShardConfig");
                g.writeNumberField("dataShards", dataShards);
                g.writeNumberField("parityShards", parityShards);
                g.writeStringField("encodeTsNs", Long.toString(encodeTsNs));
                g.writeEndObject();
            }
            g.writeBooleanField("readOnlyCanDelete", false);
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
