package io.snapcommit.flink.table;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.snapcommit.flink.SnapcommitSink;

/** The table sink's operator uid prefix: what a savepoint maps the sink's state by. */
class SnapcommitDynamicTableSinkTest {

    @Test
    void theDefaultComesFromThePathNotTheTableName() {
        // The name is not an input at all: a DDL that renames the table keeps the prefix.
        String p = SnapcommitDynamicTableSink.uidPrefix(null, Optional.empty(), "/data/orders");
        assertEquals(SnapcommitSink.defaultUidPrefix("/data/orders"), p);
        assertEquals(p, SnapcommitDynamicTableSink.uidPrefix(null, Optional.empty(), "/data/orders"));
        assertNotEquals(p, SnapcommitDynamicTableSink.uidPrefix(null, Optional.empty(), "/data/other"));
    }

    @Test
    void aPinnedPrefixWinsThenThePlannersUid() {
        assertEquals("orders-sink", SnapcommitDynamicTableSink.uidPrefix("orders-sink", Optional.of("7_sink"), "/t"));
        assertEquals("7_sink", SnapcommitDynamicTableSink.uidPrefix(null, Optional.of("7_sink"), "/t"));
    }
}
