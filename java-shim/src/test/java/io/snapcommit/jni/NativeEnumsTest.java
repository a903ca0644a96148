package io.snapcommit.jni;

import static org.junit.jupiter.api.Assertions.*;

import java.util.List;
import java.util.function.IntFunction;

import org.junit.jupiter.api.Test;

/**
 * CommitKind, Strategy and ErrorCode cross JNI as numbers: their codes must be the values of the C
 * enums (sc_commit_kind, sc_strategy_kind, error.h). Checked against the loaded library, and the
 * check itself is shown to catch a renumbered, renamed or added code.
 */
class NativeEnumsTest {
    private static final IntFunction<String> KINDS = NativeEnums::commitKindName;
    private static final IntFunction<String> STRATEGIES = NativeEnums::strategyName;
    private static final IntFunction<String> ERRORS = NativeEnums::errorName;

    @Test
    void javaCodesAreTheLibrarysCodes() {
        NativeLoader.load(); // refuses a mismatched library itself; ask again to see the list
        assertEquals(List.of(), NativeEnums.libraryMismatches());
        for (CommitKind k : CommitKind.values()) assertEquals(k.name(), NativeEnums.commitKindName(k.code()));
        for (Strategy s : Strategy.values()) assertEquals(s.configName(), NativeEnums.strategyName(s.code()));
        assertEquals("SC_ECONFLICT", NativeEnums.errorName(ErrorCode.ECONFLICT.code()));
        assertNull(NativeEnums.commitKindName(-1));
        assertNull(NativeEnums.strategyName(99));
    }

    @Test
    void theCheckCatchesEveryKindOfDrift() {
        NativeLoader.load();
        // C reorders two kinds
        IntFunction<String> swapped = c -> c == 1 ? "OVERWRITE" : c == 2 ? "COMPACT" : KINDS.apply(c);
        assertEquals(2, NativeEnums.mismatches(swapped, STRATEGIES, ERRORS).size());
        // C adds a strategy Java does not know
        IntFunction<String> added = c -> c == Strategy.values().length ? "quorum" : STRATEGIES.apply(c);
        List<String> m = NativeEnums.mismatches(KINDS, added, ERRORS);
        assertEquals(1, m.size());
        assertTrue(m.get(0).contains("quorum"), m.toString());
        // C adds an error code after the last one
        int next = -(ErrorCode.values().length + 1);
        IntFunction<String> newError = c -> c == next ? "SC_ENEW" : ERRORS.apply(c);
        assertEquals(1, NativeEnums.mismatches(KINDS, STRATEGIES, newError).size());
        // C renames one
        IntFunction<String> renamed = c -> c == -9 ? "SC_ECLASH" : ERRORS.apply(c);
        assertEquals(1, NativeEnums.mismatches(KINDS, STRATEGIES, renamed).size());
    }

    @Test
    void strategiesParseByConfigurationName() {
        assertEquals(Strategy.TRACKER, Strategy.parse(" TRACKER "));
        assertEquals(Strategy.AUTO, Strategy.parse(null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Strategy.parse("lock"));
        assertTrue(e.getMessage().contains("commit.strategy"), e.getMessage());
        for (Strategy s : Strategy.values()) assertSame(s, Strategy.ofCode(s.code()));
        for (CommitKind k : CommitKind.values()) assertSame(k, CommitKind.ofCode(k.code()));
        assertThrows(IllegalArgumentException.class, () -> Strategy.ofCode(Strategy.values().length));
    }
}
