/*
 * Sets the UCX variables UCX reads only from the process environment (global options such as UCX_ERROR_SIGNALS and
 * UCX_LOG_FILE are read once, when libucs loads). A JVM cannot change its own environment from Java, so the library
 * calls this before anything loads UCX; a variable already set (by the operator) is left as it is.
 */
#include <jni.h>
#include <stdlib.h>

/* setenv(name, value, 0); JNI_FALSE when it failed or a string could not be read. */
JNIEXPORT jboolean JNICALL Java_org_seaweedfs_rdma_ucx_UcxEnvironment_setIfAbsent0(JNIEnv *env, jclass cls,
                                                                                 jstring name, jstring value) {
    (void) cls;
    const char *n = (*env)->GetStringUTFChars(env, name, NULL);
    if (n == NULL) {
        return JNI_FALSE;
    }
    const char *v = (*env)->GetStringUTFChars(env, value, NULL);
    if (v == NULL) {
        (*env)->ReleaseStringUTFChars(env, name, n);
        return JNI_FALSE;
    }
    int rc = setenv(n, v, 0);
    (*env)->ReleaseStringUTFChars(env, value, v);
    (*env)->ReleaseStringUTFChars(env, name, n);
    return rc == 0 ? JNI_TRUE : JNI_FALSE;
}

/* getenv(name): what UCX will read, which System.getenv (a copy taken at JVM start) does not show; null if unset. */
JNIEXPORT jstring JNICALL Java_org_seaweedfs_rdma_ucx_UcxEnvironment_get0(JNIEnv *env, jclass cls, jstring name) {
    (void) cls;
    const char *n = (*env)->GetStringUTFChars(env, name, NULL);
    if (n == NULL) {
        return NULL;
    }
    const char *v = getenv(n);
    (*env)->ReleaseStringUTFChars(env, name, n);
    return v == NULL ? NULL : (*env)->NewStringUTF(env, v);
}
