package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.seaweedfs.rdma.testing.Await.await;

import org.junit.jupiter.api.Test;

/** {@code dl} takes exactly the true forms of Go's strconv.ParseBool, as the volume server does. */
class DownloadParamHttpTest extends HttpApiTestBase {

    private String disposition(String dl) throws Exception {
        return await(get("/3,01637037d6" + (dl == null ? "" : "?dl=" + dl)).send()).getHeader("Content-Disposition");
    }

    @Test
    void goParseBoolTrueFormsMakeAnAttachment() throws Exception {
        for (String dl : new String[] {"1", "t", "T", "TRUE", "true", "True"}) {
            assertEquals("attachment; filename=hello.txt", disposition(dl), "dl=" + dl);
        }
        for (String dl : new String[] {null, "", "0", "f", "false", "FALSE", "TrUe", "yes", "on", "2"}) {
            assertEquals("inline; filename=hello.txt", disposition(dl), "dl=" + dl);
        }
        assertAllReleased();
    }
}
