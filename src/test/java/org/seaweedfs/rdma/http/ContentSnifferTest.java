package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Expected values are what Go's http.DetectContentType answers for the same bytes (its own test table's cases). */
class ContentSnifferTest {

    /** Latin-1 text to bytes: each char below 256 stands for one byte. */
    private static byte[] b(String latin1) {
        return latin1.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Pairs of (bytes as Latin-1 text, type); NUL bytes rule out @CsvSource (its parser drops them). */
    private static final String[][] CASES = {
            {"<!DOCTYPE HTML><html>", "text/html; charset=utf-8"},
            {"  \n<HtMl><bOdY>blah blah", "text/html; charset=utf-8"},
            {"<HTML", "text/plain; charset=utf-8"},
            {"<HTMLX>", "text/plain; charset=utf-8"},
            {"<p ", "text/html; charset=utf-8"},
            {"<!-- x -->", "text/html; charset=utf-8"},
            {"\n<?xml!", "text/xml; charset=utf-8"},
            {"%PDF-1.4", "application/pdf"},
            {"%!PS-Adobe-3.0", "application/postscript"},
            {"GIF87a", "image/gif"},
            {"GIF89a...", "image/gif"},
            {"BM....", "image/bmp"},
            {"RIFF\u0000\u0000\u0000\u0000WEBPVP8 ", "image/webp"},
            {"\u0089PNG\r\n\u001a\n", "image/png"},
            {"\u00ff\u00d8\u00ff\u00e0", "image/jpeg"},
            {"\u0000\u0000\u0001\u0000", "image/x-icon"},
            {".snd....", "audio/basic"},
            {"FORM\u0000\u0000\u0000\u0000AIFF", "audio/aiff"},
            {"ID3\u0003", "audio/mpeg"},
            {"OggS\u0000\u0002", "application/ogg"},
            {"MThd\u0000\u0000\u0000\u0006\u0000\u0001", "audio/midi"},
            {"RIFF,O\n\u0000AVI LISTÀ", "video/avi"},
            {"RIFF,\u0000\u0000\u0000WAVEfmt ", "audio/wave"},
            {"\u0000\u0000\u0000\u0018ftypmp42\u0000\u0000\u0000\u0000mp42isom<\u0006t\u00bfmdat", "video/mp4"},
            {"\u001aE\u00df\u00a3", "video/webm"},
            {"\u0000\u0001\u0000\u0000", "font/ttf"},
            {"OTTO....", "font/otf"},
            {"ttcf\u0000\u0001\u0000\u0000", "font/collection"},
            {"wOFF....", "font/woff"},
            {"wOF2....", "font/woff2"},
            {"\u001f\u008b\u0008", "application/x-gzip"},
            {"PK\u0003\u0004", "application/zip"},
            {"Rar!\u001a\u0007\u0000", "application/x-rar-compressed"},
            {"Rar!\u001a\u0007\u0001\u0000", "application/x-rar-compressed"},
            {"\u0000asm\u0001\u0000\u0000\u0000", "application/wasm"},
            {"\u00fe\u00ff\u0000\u0000", "text/plain; charset=utf-16be"},
            {"\u00ff\u00fe\u0000\u0000", "text/plain; charset=utf-16le"},
            {"\u00ef\u00bb\u00bfhi", "text/plain; charset=utf-8"},
            {"hello, world", "text/plain; charset=utf-8"},
            {"\u0001\u0002\u0003", "application/octet-stream"},
            {"text\u001bwith escape", "text/plain; charset=utf-8"},
            {"text\u001cwith FS", "application/octet-stream"},
    };

    static Stream<Arguments> cases() {
        return Arrays.stream(CASES).map(c -> Arguments.of(c[0], c[1]));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void signatures(String data, String expected) {
        assertEquals(expected, ContentSniffer.detect(b(data)));
    }

    @Test
    void embeddedOpenTypeNeedsItsMagicAt34() {
        byte[] eot = new byte[40];
        eot[34] = 'L';
        eot[35] = 'P';
        assertEquals("application/vnd.ms-fontobject", ContentSniffer.detect(eot));
        assertEquals("application/octet-stream", ContentSniffer.detect(new byte[40]));
    }

    @Test
    void onlyTheFirst512BytesCount() {
        byte[] data = new byte[600];
        Arrays.fill(data, (byte) 'a');
        data[550] = 1; // binary, but past the sniffed prefix
        assertEquals("text/plain; charset=utf-8", ContentSniffer.detect(data));
        data[500] = 1;
        assertEquals("application/octet-stream", ContentSniffer.detect(data));
        assertEquals("text/plain; charset=utf-8", ContentSniffer.detect(data, 500), "a shorter prefix");
    }

    @Test
    void mp4NeedsAnMp4BrandInsideTheBox() {
        byte[] box = b("\u0000\u0000\u0000\u0010ftypisomXXXXabcd");
        assertEquals("application/octet-stream", ContentSniffer.detect(box));
        byte[] minor = b("\u0000\u0000\u0000\u0010ftypisommp4Xabcd"); // at 12: the major brand's version, skipped
        assertEquals("application/octet-stream", ContentSniffer.detect(minor));
        byte[] compat = b("\u0000\u0000\u0000\u0014ftypisomXXXXmp41");
        assertEquals("video/mp4", ContentSniffer.detect(compat));
    }

    @Test
    void emptyIsText() {
        assertEquals("text/plain; charset=utf-8", ContentSniffer.detect(new byte[0]));
    }
}
