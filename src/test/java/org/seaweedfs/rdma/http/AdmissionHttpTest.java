package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.*;
import static org.seaweedfs.rdma.testing.Await.await;
import static org.seaweedfs.rdma.testing.Await.until;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import org.junit.jupiter.api.Test;

class AdmissionHttpTest extends HttpApiTestBase {

    @Override
    int maxInFlight() {
        return 2;
    }

    @Test
    void beyondTheLimitIs503WithRetryAfterAtOnce() throws Exception {
        source.hold(true);
        Future<HttpResponse<Buffer>> first = get("/3,01637037d6").send();
        Future<HttpResponse<Buffer>> second = get("/read?file_id=3,01637037d6").send();
        until("both admitted reads reached the source", () -> source.heldReads() == 2);
        HttpResponse<Buffer> rejected = await(get("/3,01637037d6").send());
        assertEquals(503, rejected.statusCode());
        assertEquals("1", rejected.getHeader("Retry-After"));
        assertEquals(503, rejected.bodyAsJsonObject().getInteger("code"));
        assertEquals(200, await(get("/health").send()).statusCode(), "health is not a needle read");
        source.releaseHeld();
        assertEquals(200, await(first).statusCode());
        assertEquals(200, await(second).statusCode());
        assertAllReleased();
        assertEquals(200, await(get("/3,01637037d6").send()).statusCode());
    }
}
