/*
 * Native codes → Java exceptions. Each code of error.h maps to one class of
 * the io.snapcommit.jni hierarchy (all subclasses of SnapcommitException);
 * the exception carries the code, its symbolic name and the detailed message
 * of the failure (sc_error_message()).
 */
#include <stdlib.h>
#include <string.h>

#include "jni_internal.h"

typedef struct code_class {
    int code;
    const char *name; /* simple class name in io.snapcommit.jni */
    jclass cls;       /* global ref, set in scj_errors_init */
    jmethodID ctor;   /* (int code, String codeName, byte[] message, long detail) */
} code_class;

#define CTOR_SIG "(ILjava/lang/String;[BJ)V"

static code_class classes[] = {
    {SC_EINVAL, "InvalidArgumentException", NULL, NULL},
    {SC_ENOMEM, "NativeOutOfMemoryException", NULL, NULL},
    {SC_EIO, "StorageIOException", NULL, NULL},
    {SC_ENOTFOUND, "NotFoundException", NULL, NULL},
    {SC_EEXISTS, "ObjectExistsException", NULL, NULL},
    {SC_EMODIFIED, "ObjectModifiedException", NULL, NULL},
    {SC_EUNKNOWN, "UnknownOutcomeException", NULL, NULL},
    {SC_ECORRUPT, "CorruptMetadataException", NULL, NULL},
    {SC_ECONFLICT, "ConflictException", NULL, NULL},
    {SC_ECOMMITTED, "AlreadyCommittedException", NULL, NULL},
    {SC_ERETRIES, "RetriesExhaustedException", NULL, NULL},
    {SC_ETIMEOUT, "CommitTimeoutException", NULL, NULL},
    {SC_EUNSUPPORTED, "UnsupportedException", NULL, NULL},
    {SC_ETABLEEXISTS, "TableExistsException", NULL, NULL},
    {SC_ENOTABLE, "NoTableException", NULL, NULL},
    {SC_ELIMIT, "LimitExceededException", NULL, NULL},
    {SC_EAUTH, "AuthException", NULL, NULL},
    {SC_ETRANSIENT, "TransientStorageException", NULL, NULL},
    {SC_EFAULT, "InjectedFaultException", NULL, NULL},
};
#define CLASS_COUNT (sizeof classes / sizeof classes[0])

static jmethodID base_ctor;

/* A global ref to class `name`; NULL with NoClassDefFoundError pending. */
static jclass global_class(JNIEnv *env, const char *name) {
    jclass local = (*env)->FindClass(env, name);
    if (!local) return NULL;
    jclass global = (*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
    if (!global) scj_throw(env, scj.out_of_memory, "NewGlobalRef");
    return global;
}

int scj_errors_init(JNIEnv *env) {
    if (!(scj.out_of_memory = global_class(env, "java/lang/OutOfMemoryError"))) return -1;
    if (!(scj.illegal_argument = global_class(env, "java/lang/IllegalArgumentException"))) return -1;
    if (!(scj.illegal_state = global_class(env, "java/lang/IllegalStateException"))) return -1;
    if (!(scj.snapcommit_exception = global_class(env, SCJ_PKG "SnapcommitException"))) return -1;
    base_ctor = (*env)->GetMethodID(env, scj.snapcommit_exception, "<init>", CTOR_SIG);
    if (!base_ctor) return -1;
    for (size_t i = 0; i < CLASS_COUNT; i++) {
        char name[128];
        strcpy(name, SCJ_PKG);
        strncat(name, classes[i].name, sizeof name - strlen(name) - 1);
        if (!(classes[i].cls = global_class(env, name))) return -1;
        classes[i].ctor = (*env)->GetMethodID(env, classes[i].cls, "<init>", CTOR_SIG);
        if (!classes[i].ctor) return -1;
    }
    return 0;
}

static void drop(JNIEnv *env, jclass *ref) {
    if (*ref) (*env)->DeleteGlobalRef(env, *ref);
    *ref = NULL;
}

void scj_errors_release(JNIEnv *env) {
    for (size_t i = 0; i < CLASS_COUNT; i++) drop(env, &classes[i].cls);
    drop(env, &scj.snapcommit_exception);
    drop(env, &scj.illegal_argument);
    drop(env, &scj.illegal_state);
    drop(env, &scj.out_of_memory);
}

void scj_throw(JNIEnv *env, jclass cls, const char *message) {
    if ((*env)->ExceptionCheck(env)) return; /* keep the first failure */
    (*env)->ThrowNew(env, cls, message);
}

void scj_throw_code(JNIEnv *env, int code, int64_t detail) {
    /* Copy the message first: later JNI calls cannot touch it, but be explicit. */
    const char *text = sc_error_message();
    size_t len = strlen(text);
    char *message = malloc(len + 1);
    if (!message) {
        scj_throw(env, scj.out_of_memory, "copying a snapcommit error message");
        return;
    }
    memcpy(message, text, len + 1);
    if ((*env)->ExceptionCheck(env)) {
        free(message);
        return;
    }
    jclass cls = scj.snapcommit_exception;
    jmethodID ctor = base_ctor;
    for (size_t i = 0; i < CLASS_COUNT; i++) {
        if (classes[i].code == code) {
            cls = classes[i].cls;
            ctor = classes[i].ctor;
            break;
        }
    }
    jstring name = (*env)->NewStringUTF(env, sc_error_name(code)); /* ASCII */
    jbyteArray bytes = name ? scj_new_bytes(env, message, len) : NULL;
    free(message);
    if (!bytes) {
        if (name) (*env)->DeleteLocalRef(env, name);
        return; /* OutOfMemoryError pending */
    }
    jthrowable ex = (jthrowable)(*env)->NewObject(env, cls, ctor, (jint)code, name, bytes, (jlong)detail);
    (*env)->DeleteLocalRef(env, name);
    (*env)->DeleteLocalRef(env, bytes);
    if (!ex) return; /* the constructor's own failure is pending */
    (*env)->Throw(env, ex);
    (*env)->DeleteLocalRef(env, ex);
}
