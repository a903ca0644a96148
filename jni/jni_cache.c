/*
 * The cache of classes and method ids (jni_internal.h), in a file of its own
 * so that every module can read it without depending on JNI_OnLoad's file:
 * jni_onload.c fills it, jni_errors.c adds the exception classes, and the
 * entry points only read it. Defining it here keeps the binding's calls one
 * way (jni/check_cycles.sh).
 */
#include "jni_internal.h"

scj_cache scj;
