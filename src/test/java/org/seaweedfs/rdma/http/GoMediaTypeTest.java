package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Expected values are what Go's mime.FormatMediaType / mime.TypeByExtension give for the same input. */
class GoMediaTypeTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', quoteCharacter = '`', value = {
            // a token stays bare
            "hello.txt            | inline; filename=hello.txt",
            "a-b_c.tar.gz         | inline; filename=a-b_c.tar.gz",
            // space and tspecials force quoting; quote and backslash are escaped
            "my file.txt          | inline; filename=\"my file.txt\"",
            "a+b=c.txt            | inline; filename=\"a+b=c.txt\"",
            "x;y.txt              | inline; filename=\"x;y.txt\"",
            "`say \"hi\".txt`     | inline; filename=\"say \\\"hi\\\".txt\"",
            "`a\\b`               | inline; filename=\"a\\\\b\"",
            "`(1)`                | inline; filename=\"(1)\"",
            // tab is printable for Go: quoted, not encoded
            "`a\tb`               | `inline; filename=\"a\tb\"`",
            // non-ASCII: RFC 2231, every byte outside attribute-char upper-hex encoded
            "naïve file.txt       | inline; filename*=utf-8''na%C3%AFve%20file.txt",
            "日本.txt             | inline; filename*=utf-8''%E6%97%A5%E6%9C%AC.txt",
            "`ü'*%().txt`         | inline; filename*=utf-8''%C3%BC%27%2A%25%28%29.txt",
    })
    void dispositionIsFormatMediaType(String name, String expected) {
        assertEquals(expected, GoMediaType.disposition("inline", name));
    }

    @Test
    void controlCharactersAndDelAreEncoded() {
        assertEquals("attachment; filename*=utf-8''a%0Ab%7F", GoMediaType.disposition("attachment", "a\nb\u007f"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "a.txt          | text/plain; charset=utf-8",
            "A.TXT          | text/plain; charset=utf-8",
            "x.html         | text/html; charset=utf-8",
            "x.js           | text/javascript; charset=utf-8",
            "x.xml          | text/xml; charset=utf-8",
            "x.csv          | text/csv; charset=utf-8",
            "x.json         | application/json",
            "photo.JPG      | image/jpeg",
            "x.png          | image/png",
            "x.pdf          | application/pdf",
            "x.wasm         | application/wasm",
            "x.avif         | image/avif",
            "clip.mp4       | video/mp4",
            "dir.d/x.pdf    | application/pdf"})
    void typeByExtension(String name, String expected) {
        assertEquals(expected, GoMediaType.typeByFilename(name));
    }

    @Test
    void noExtensionOrAnUnknownOneHasNoType() {
        assertNull(GoMediaType.typeByFilename("README"));
        assertNull(GoMediaType.typeByFilename("a.d/README"));
        assertNull(GoMediaType.typeByFilename("x.nosuchext"));
        assertNull(GoMediaType.typeByFilename(""));
        assertEquals(".gz", GoMediaType.extension("a.tar.gz"));
        assertEquals(".bashrc", GoMediaType.extension(".bashrc"));
    }
}
