package org.seaweedfs.rdma.http;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.seaweedfs.rdma.volume.FileId;

/**
 * The body of {@code POST /batch}: one fid per line, optionally followed by whitespace and its read token
 * ({@code <fid>[ <jwt>]}). Lines end with LF or CRLF; blank lines are skipped. A line that is not that is refused
 * whole, naming the line, before anything is read.
 */
record BatchRequest(List<Line> lines) {

    /** What separates a line's fid from its token. */
    private static final Pattern BLANKS = Pattern.compile("[ \\t]+");

    /**
     * One fid asked for.
     *
     * @param text  the fid as written (the member's name)
     * @param fid   the fid parsed
     * @param token the read token beside it, null when none
     */
    record Line(String text, FileId fid, String token) {
    }

    /** Why a body was refused, with the status it answers (400 malformed, 413 too many fids). */
    static final class Refused extends RuntimeException {
        final int status;

        Refused(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }

    static BatchRequest parse(Buffer body, int maxFids) {
        String text = body.toString(StandardCharsets.UTF_8);
        List<Line> lines = new ArrayList<>();
        int number = 0;
        for (int at = 0; at < text.length(); ) {
            int end = text.indexOf('\n', at);
            if (end < 0) {
                end = text.length();
            }
            String line = text.substring(at, end);
            at = end + 1;
            number++;
            if (line.endsWith("\r")) {
                line = line.substring(0, line.length() - 1);
            }
            if (line.isBlank()) {
                continue;
            }
            if (lines.size() == maxFids) {
                throw new Refused(413, "too many fids: more than " + maxFids + " (sidecar.batch.maxFids)");
            }
            lines.add(line(line.strip(), number));
        }
        return new BatchRequest(List.copyOf(lines));
    }

    private static Line line(String line, int number) {
        // Most lines are a fid alone: no pattern to run.
        String[] words = line.indexOf(' ') < 0 && line.indexOf('\t') < 0 ? new String[] {line} : BLANKS.split(line);
        if (words.length > 2) {
            throw malformed(number, "expected '<fid>' or '<fid> <jwt>', got " + words.length + " words");
        }
        String fidText = words[0];
        if (fidText.getBytes(StandardCharsets.UTF_8).length > TarMember.MAX_NAME - ".error".length()) {
            throw malformed(number, "fid longer than " + (TarMember.MAX_NAME - ".error".length()) + " bytes");
        }
        try {
            return new Line(fidText, FileId.parse(fidText), words.length == 2 ? words[1] : null);
        } catch (IllegalArgumentException e) {
            throw malformed(number, e.getMessage());
        }
    }

    private static Refused malformed(int number, String why) {
        return new Refused(400, "line " + number + ": " + why);
    }
}
