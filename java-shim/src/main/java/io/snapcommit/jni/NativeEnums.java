package io.snapcommit.jni;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * The codes that cross JNI as numbers (commit kinds, strategies, error codes) must mean the same
 * thing to this jar and to the library it loaded: a jar and a library from different builds
 * (-Dsnapcommit.jni.path, java.library.path) would otherwise commit the wrong kind or misreport
 * an error. {@link NativeLoader} calls {@link #mismatches} once after loading and refuses a
 * library that names any code differently, or knows one more code of a kind, than this jar.
 */
final class NativeEnums {
    private NativeEnums() {}

    /** Every disagreement between this jar's enums and the given name functions; empty when none. */
    static List<String> mismatches(IntFunction<String> kindName, IntFunction<String> strategyName,
                                   IntFunction<String> errorName) {
        List<String> out = new ArrayList<>();
        for (CommitKind k : CommitKind.values()) same(out, "commit kind", k.code(), k.name(), kindName);
        same(out, "commit kind", CommitKind.values().length, null, kindName);
        for (Strategy s : Strategy.values()) same(out, "strategy", s.code(), s.configName(), strategyName);
        same(out, "strategy", Strategy.values().length, null, strategyName);
        for (ErrorCode e : ErrorCode.values()) same(out, "error", e.code(), e.cName(), errorName);
        // sc_error_name names an unknown code "SC_E?": the code after the last must be unknown.
        same(out, "error", -(ErrorCode.values().length + 1), "SC_E?", errorName);
        return out;
    }

    private static void same(List<String> out, String what, int code, String want, IntFunction<String> names) {
        String got = names.apply(code);
        if (want == null ? got != null : !want.equals(got))
            out.add(what + " code " + code + ": library says " + got + ", this jar " + want);
    }

    /** The library's mismatches against this jar (the library must be loaded). */
    static List<String> libraryMismatches() {
        return mismatches(NativeEnums::commitKindName, NativeEnums::strategyName, NativeEnums::errorName);
    }

    /** sc_commit_kind_name(code), null for an unknown code. */
    static native String commitKindName(int code);

    /** sc_strategy_name(code), null for an unknown code. */
    static native String strategyName(int code);

    /** sc_error_name(code): "SC_E?" for an unknown code. */
    static native String errorName(int code);
}
