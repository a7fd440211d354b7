package org.seaweedfs.rdma.testing;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** A missing environment skips a test unless it is required; then it fails, naming what is missing. */
class RequiredEnvironmentTest {

    private String saved;

    @BeforeEach
    void save() {
        saved = System.getProperty(RequiredEnvironment.PROPERTY);
    }

    @AfterEach
    void restore() {
        if (saved == null) {
            System.clearProperty(RequiredEnvironment.PROPERTY);
        } else {
            System.setProperty(RequiredEnvironment.PROPERTY, saved);
        }
    }

    @Test
    void aMissingEnvironmentSkipsUnlessRequired() {
        System.clearProperty(RequiredEnvironment.PROPERTY);
        TestAbortedException skipped = assertThrows(TestAbortedException.class,
                () -> RequiredEnvironment.assume(RequiredEnvironment.NETNS, false, () -> "nft is not installed"));
        assertTrue(skipped.getMessage().contains("nft is not installed"), skipped.getMessage());

        System.setProperty(RequiredEnvironment.PROPERTY, "chromium, netns");
        AssertionFailedError failed = assertThrows(AssertionFailedError.class,
                () -> RequiredEnvironment.assume(RequiredEnvironment.NETNS, false, () -> "nft is not installed"));
        assertTrue(failed.getMessage().startsWith("netns is required"), failed.getMessage());
        assertTrue(failed.getMessage().contains("nft is not installed"), failed.getMessage());
        assertThrows(TestAbortedException.class,
                () -> RequiredEnvironment.assume(RequiredEnvironment.IO_URING, false, () -> "no io_uring"),
                "what is not required still skips");
        assertDoesNotThrow(() -> RequiredEnvironment.assume(RequiredEnvironment.NETNS, true, () -> "unused"));
    }

    @Test
    void anUnknownNameInThePropertyFails() {
        System.setProperty(RequiredEnvironment.PROPERTY, "netns,chromum");
        AssertionFailedError failed = assertThrows(AssertionFailedError.class,
                () -> RequiredEnvironment.assume(RequiredEnvironment.NETNS, true, () -> "unused"));
        assertTrue(failed.getMessage().contains("chromum"), failed.getMessage());
    }
}
