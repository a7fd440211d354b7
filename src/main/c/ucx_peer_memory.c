/*
 * Gets from a peer's memory that UCX has mapped into this process: for a same-host peer's shared-memory segment
 * (UCX's posix and sysv transports), unpacking its remote key attaches the segment here, and ucp_rkey_ptr tells where
 * a remote address lies in this process. A get is then one memcpy on the calling thread, with none of the request,
 * JNI callback and worker progress a get through JUCX costs - the same copy UCX's shared-memory get makes itself -
 * or no copy at all: the reader uses the bytes where they lie.
 *
 * ucp_rkey_ptr is found with dlsym in the libucp JUCX already loaded, so no UCX header is needed: its status is UCX's
 * packed enum, one signed byte, UCS_OK being 0.
 */
#include <dlfcn.h>
#include <jni.h>
#include <stdint.h>
#include <string.h>

typedef int8_t (*rkey_ptr_t)(void *rkey, uint64_t remote_address, void **local_address);

static rkey_ptr_t rkey_ptr;

/* Finds ucp_rkey_ptr once UCX is loaded; JNI_FALSE when libucp or the function cannot be found. */
JNIEXPORT jboolean JNICALL Java_org_seaweedfs_rdma_ucx_PeerMemory_resolve0(JNIEnv *env, jclass cls) {
    (void) env;
    (void) cls;
    if (rkey_ptr == NULL) {
        void *ucp = dlopen("libucp.so.0", RTLD_NOW | RTLD_NOLOAD);
        if (ucp != NULL) {
            rkey_ptr = (rkey_ptr_t) dlsym(ucp, "ucp_rkey_ptr");
        }
    }
    return rkey_ptr != NULL ? JNI_TRUE : JNI_FALSE;
}

/* Where the peer's remote_address lies in this process under the unpacked key rkey (a ucp_rkey_h), or NULL. */
static void *mapped_here(jlong rkey, jlong remote_address) {
    void *mapped = NULL;
    if (rkey_ptr == NULL || rkey == 0
            || rkey_ptr((void *) (intptr_t) rkey, (uint64_t) remote_address, &mapped) != 0) {
        return NULL;
    }
    return mapped;
}

/*
 * Copies length bytes at the peer's remote_address, under the unpacked key rkey, to local_address. JNI_FALSE, having
 * copied nothing, when UCX has not mapped that memory here (another host, or memory only a transport's own protocol
 * reaches): the caller then issues a get.
 */
JNIEXPORT jboolean JNICALL Java_org_seaweedfs_rdma_ucx_PeerMemory_copy0(JNIEnv *env, jclass cls, jlong rkey,
                                                                       jlong remote_address, jlong local_address,
                                                                       jlong length) {
    (void) env;
    (void) cls;
    void *mapped = mapped_here(rkey, remote_address);
    if (mapped == NULL) {
        return JNI_FALSE;
    }
    memcpy((void *) (intptr_t) local_address, mapped, (size_t) length);
    return JNI_TRUE;
}

/* The local address of the peer's remote_address under the unpacked key rkey, or 0 when it is not mapped here. */
JNIEXPORT jlong JNICALL Java_org_seaweedfs_rdma_ucx_PeerMemory_address0(JNIEnv *env, jclass cls, jlong rkey,
                                                                       jlong remote_address) {
    (void) env;
    (void) cls;
    return (jlong) (intptr_t) mapped_here(rkey, remote_address);
}
