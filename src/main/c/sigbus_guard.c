/*
 * SIGBUS guard for read-only volume mappings: the agent's own, and a same-host sidecar's mappings of the agent's
 * files (see docs/reliability.md, "A .dat cut or unreadable under the agent").
 *
 * A page of a MAP_SHARED file mapping that lies beyond the file's end (the .dat was truncated) or that the kernel
 * cannot read (I/O error) raises SIGBUS on access. Where UCX emulates the sidecar's get by copying from the agent's
 * mapping (no RDMA NIC), that access happens in native code and the JVM would die. This handler, installed after the
 * JVM started, replaces such a page - only inside a range the agent registered - with an anonymous zero page and
 * lets the copy go on; the agent polls the event count and reopens the volume, and zero bytes fail the sidecar's
 * key, cookie and CRC checks, so they are never served as good. Any other SIGBUS goes to the handler that was
 * installed before (the JVM's, which uses SIGBUS for its own mapped buffers), unchanged.
 *
 * The handler only calls async-signal-safe functions (mmap, sigaction, raise) and reads the range table with
 * atomic loads; the table is written by Java threads with atomic stores.
 */
#include <errno.h>
#include <fcntl.h>
#include <jni.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLOTS 65536

static _Atomic uintptr_t starts[SLOTS];
static _Atomic uintptr_t ends[SLOTS];
static _Atomic int faulted[SLOTS];
static _Atomic long faults;
static _Atomic int installed;
static struct sigaction previous;
static uintptr_t page_size;

static void forward(int sig, siginfo_t *info, void *context) {
    if (previous.sa_flags & SA_SIGINFO) {
        previous.sa_sigaction(sig, info, context);
    } else if (previous.sa_handler == SIG_IGN) {
        return;
    } else if (previous.sa_handler == SIG_DFL) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, NULL);
        raise(sig);
    } else {
        previous.sa_handler(sig);
    }
}

static void on_sigbus(int sig, siginfo_t *info, void *context) {
    uintptr_t addr = (uintptr_t) info->si_addr;
    for (int i = 0; i < SLOTS; i++) {
        uintptr_t start = atomic_load_explicit(&starts[i], memory_order_acquire);
        if (start != 0 && addr >= start && addr < atomic_load_explicit(&ends[i], memory_order_acquire)) {
            void *page = (void *) (addr & ~(page_size - 1));
            if (mmap(page, page_size, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED) {
                atomic_store(&faulted[i], 1);
                atomic_fetch_add(&faults, 1);
                return;
            }
            break;
        }
    }
    forward(sig, info, context);
}

JNIEXPORT jboolean JNICALL Java_org_seaweedfs_rdma_ucx_SigbusGuard_install0(JNIEnv *env, jclass cls) {
    int expected = 0;
    if (!atomic_compare_exchange_strong(&installed, &expected, 1)) {
        return JNI_TRUE;
    }
    page_size = (uintptr_t) sysconf(_SC_PAGESIZE);
    struct sigaction guard;
    memset(&guard, 0, sizeof guard);
    guard.sa_sigaction = on_sigbus;
    guard.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigemptyset(&guard.sa_mask);
    if (sigaction(SIGBUS, &guard, &previous) != 0) {
        atomic_store(&installed, 0);
        return JNI_FALSE;
    }
    return JNI_TRUE;
}

/** Takes a free slot for [start, start + length); -1 when the table is full. */
JNIEXPORT jint JNICALL Java_org_seaweedfs_rdma_ucx_SigbusGuard_register0(JNIEnv *env, jclass cls, jlong start,
                                                                          jlong length) {
    for (int i = 0; i < SLOTS; i++) {
        uintptr_t expected = 0;
        if (atomic_load(&starts[i]) == 0 && atomic_load(&ends[i]) == 0) {
            atomic_store(&ends[i], (uintptr_t) (start + length));
            if (atomic_compare_exchange_strong(&starts[i], &expected, (uintptr_t) start)) {
                return i;
            }
        }
    }
    return -1;
}

/** Whether a page of the slot's range was replaced since the last call (and clears the flag). */
JNIEXPORT jboolean JNICALL Java_org_seaweedfs_rdma_ucx_SigbusGuard_takeFaulted0(JNIEnv *env, jclass cls, jint slot) {
    return slot >= 0 && slot < SLOTS && atomic_exchange(&faulted[slot], 0) ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT void JNICALL Java_org_seaweedfs_rdma_ucx_SigbusGuard_unregister0(JNIEnv *env, jclass cls, jint slot) {
    if (slot >= 0 && slot < SLOTS) {
        atomic_store(&starts[slot], 0);
        atomic_store(&ends[slot], 0);
        atomic_store(&faulted[slot], 0);
    }
}

JNIEXPORT jlong JNICALL Java_org_seaweedfs_rdma_ucx_SigbusGuard_faults0(JNIEnv *env, jclass cls) {
    return atomic_load(&faults);
}

/*
 * Maps [offset, offset + length) of the file at path read-only (MAP_SHARED), only when the file opened is the one
 * named by device and inode and holds those bytes: a path renamed over (compaction) or on another filesystem is
 * refused. Returns the address of offset in the mapping; or -1 (cannot open: errno in *err), -2 (another file),
 * -3 (shorter than offset + length), -4 (mmap failed: errno in *err). The caller guards the range before use.
 */
JNIEXPORT jlong JNICALL Java_org_seaweedfs_rdma_ucx_SigbusGuard_mapFile0(JNIEnv *env, jclass cls, jstring path,
                                                                       jlong offset, jlong length, jlong device,
                                                                       jlong inode, jintArray err) {
    const char *name = (*env)->GetStringUTFChars(env, path, NULL);
    if (name == NULL) {
        return -1;
    }
    int fd = open(name, O_RDONLY | O_CLOEXEC);
    int saved = errno;
    (*env)->ReleaseStringUTFChars(env, path, name);
    jint code[1] = {0};
    jlong result;
    struct stat st;
    if (fd < 0) {
        code[0] = saved;
        result = -1;
    } else if (fstat(fd, &st) != 0) {
        code[0] = errno;
        result = -1;
    } else if ((jlong) st.st_dev != device || (jlong) st.st_ino != inode) {
        result = -2;
    } else if (st.st_size < offset + length) {
        result = -3;
    } else {
        off_t start = (off_t) (offset & ~(jlong) (page_size - 1));
        size_t span = (size_t) (offset - start + length);
        void *mapped = mmap(NULL, span, PROT_READ, MAP_SHARED, fd, start);
        if (mapped == MAP_FAILED) {
            code[0] = errno;
            result = -4;
        } else {
            result = (jlong) ((uintptr_t) mapped + (uintptr_t) (offset - start));
        }
    }
    if (fd >= 0) {
        close(fd);
    }
    (*env)->SetIntArrayRegion(env, err, 0, 1, code);
    return result;
}

/** A direct buffer over [address, address + length), which the caller keeps mapped while the buffer is used. */
JNIEXPORT jobject JNICALL Java_org_seaweedfs_rdma_ucx_SigbusGuard_bytesAt0(JNIEnv *env, jclass cls, jlong address,
                                                                          jint length) {
    return (*env)->NewDirectByteBuffer(env, (void *) (uintptr_t) address, (jlong) length);
}

/** Unmaps what mapFile0 mapped at address for length bytes (the caller unguarded it first). */
JNIEXPORT void JNICALL Java_org_seaweedfs_rdma_ucx_SigbusGuard_unmapFile0(JNIEnv *env, jclass cls, jlong address,
                                                                         jlong length) {
    uintptr_t start = (uintptr_t) address & ~(page_size - 1);
    munmap((void *) start, (size_t) ((uintptr_t) address - start + (uintptr_t) length));
}
