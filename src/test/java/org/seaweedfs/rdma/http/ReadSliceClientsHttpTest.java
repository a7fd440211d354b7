package org.seaweedfs.rdma.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.seaweedfs.rdma.testing.Await.await;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.seaweedfs.rdma.config.ClientNetwork;

/** http.readSliceClients not naming this (loopback) client: {@code /read} needs a read token like a needle URL. */
class ReadSliceClientsHttpTest extends HttpApiTestBase {

    private static final String KEY = "read-secret";

    @Override
    String jwtReadKey() {
        return KEY;
    }

    @Override
    List<ClientNetwork> readSliceClients() {
        return List.of(ClientNetwork.parse("10.0.0.0/8"), ClientNetwork.parse("fd00::/8"));
    }

    @Test
    void aClientOutsideTheListNeedsAToken() throws Exception {
        var refused = await(get("/read?file_id=3,01637037d6").send());
        assertEquals(401, refused.statusCode());
        assertTrue(refused.bodyAsJsonObject().getString("error").contains("missing read token"));
        String token = JwtReadAuthHttpTest.token(vertx, KEY, "3,01637037d6", 60);
        var served = await(get("/read?file_id=3,01637037d6&offset=1&size=4&jwt=" + token).send());
        assertEquals(200, served.statusCode());
        assertEquals("ello", served.bodyAsString());
    }
}
