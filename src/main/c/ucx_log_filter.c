/*
 * Drops exactly one UCX log message: "UCP API version is incompatible: required >= 1.15, actual 1.13.1", which UCX
 * prints at every ucp_init when JUCX 1.15 (built against UCX 1.15's headers) runs on an older libucp such as Debian
 * 12's 1.13.1. JUCX 1.15 stays because older JUCX releases leak a JNI global reference per immediately completed
 * request (docs/protocol.md, "UCX versions"); the calls it makes that 1.13.1 lacks are never made (ArchitectureTest).
 *
 * The filter is a UCX log handler (ucs_log_push_handler), found with dlsym in the libucs JUCX already loaded: UCX
 * calls the last pushed handler first, and this one stops only that message - by its function and text, at whatever
 * level - and passes every other message on to UCX's own handler unchanged. No UCX header is needed: the handler's
 * signature is UCX's ucs_log_func_t with its enums as ints.
 */
#include <dlfcn.h>
#include <jni.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>

/* ucs_log_func_rc_t of UCX 1.13 .. 1.18 */
#define LOG_FUNC_RC_STOP 0
#define LOG_FUNC_RC_CONTINUE 1

typedef int (*log_func_t)(const char *file, unsigned line, const char *function, int level, const void *component,
                          const char *format, va_list ap);
typedef void (*push_handler_t)(log_func_t handler);

static const char DROPPED[] = "UCP API version is incompatible";
static _Atomic long dropped;
static _Atomic int installed;

static int drop_api_version_warning(const char *file, unsigned line, const char *function, int level,
                                    const void *component, const char *format, va_list ap) {
    (void) file;
    (void) line;
    (void) level;
    (void) component;
    if (function != NULL && strcmp(function, "ucp_version_check") == 0 && format != NULL && strcmp(format, "%s") == 0) {
        va_list copy;
        va_copy(copy, ap);
        const char *text = va_arg(copy, const char *);
        va_end(copy);
        if (text != NULL && strncmp(text, DROPPED, sizeof(DROPPED) - 1) == 0) {
            atomic_fetch_add(&dropped, 1);
            return LOG_FUNC_RC_STOP;
        }
    }
    return LOG_FUNC_RC_CONTINUE;
}

/* Pushes the handler once per process; JNI_FALSE when libucs or its ucs_log_push_handler cannot be found. */
JNIEXPORT jboolean JNICALL Java_org_seaweedfs_rdma_ucx_UcxLogFilter_install0(JNIEnv *env, jclass cls) {
    (void) env;
    (void) cls;
    if (atomic_load(&installed)) {
        return JNI_TRUE;
    }
    void *ucs = dlopen("libucs.so.0", RTLD_NOW | RTLD_NOLOAD);
    if (ucs == NULL) {
        return JNI_FALSE;
    }
    push_handler_t push = (push_handler_t) dlsym(ucs, "ucs_log_push_handler");
    if (push == NULL) {
        return JNI_FALSE;
    }
    int expected = 0;
    if (atomic_compare_exchange_strong(&installed, &expected, 1)) {
        push(drop_api_version_warning);
    }
    return JNI_TRUE;
}

JNIEXPORT jlong JNICALL Java_org_seaweedfs_rdma_ucx_UcxLogFilter_dropped0(JNIEnv *env, jclass cls) {
    (void) env;
    (void) cls;
    return atomic_load(&dropped);
}
