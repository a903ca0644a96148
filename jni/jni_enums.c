/*
 * io.snapcommit.jni.NativeEnums: the library's names of the codes that cross
 * JNI as numbers (sc_commit_kind, sc_strategy_kind, error codes), so that the
 * Java side can refuse a library whose numbering differs from its enums.
 */
#include "jni_internal.h"

/* NULL name -> null string (an unknown code); names are ASCII. */
static jstring name_or_null(JNIEnv *env, const char *name) {
    return name ? (*env)->NewStringUTF(env, name) : NULL;
}

/* static native String commitKindName(int code): sc_commit_kind_name, null when unknown */
SCJ_EXPORT jstring JNICALL Java_io_snapcommit_jni_NativeEnums_commitKindName(JNIEnv *env, jclass cls,
                                                                             jint code) {
    (void)cls;
    return name_or_null(env, sc_commit_kind_name((sc_commit_kind)code));
}

/* static native String strategyName(int code): sc_strategy_name, null when unknown */
SCJ_EXPORT jstring JNICALL Java_io_snapcommit_jni_NativeEnums_strategyName(JNIEnv *env, jclass cls,
                                                                           jint code) {
    (void)cls;
    return name_or_null(env, sc_strategy_name((sc_strategy_kind)code));
}

/* static native String errorName(int code): sc_error_name, "SC_E?" when unknown */
SCJ_EXPORT jstring JNICALL Java_io_snapcommit_jni_NativeEnums_errorName(JNIEnv *env, jclass cls,
                                                                        jint code) {
    (void)cls;
    return name_or_null(env, sc_error_name(code));
}
