package io.snapcommit.jni;

import java.io.Serializable;
import java.util.Objects;

/**
 * What an INSERT OVERWRITE checkpoint replaces (sc_overwrite_scope, docs/format.md §10): nothing,
 * the partitions the append part writes (dynamic), the partitions matching a spec of some or all
 * partition keys, or the whole table.
 */
public final class Overwrite implements Serializable {
    private static final long serialVersionUID = 1L;

    /** A plain checkpoint. */
    public static final Overwrite NONE = new Overwrite(0, null);
    /** The partitions the append part adds or deletes files in (Paimon's dynamic-partition-overwrite). */
    public static final Overwrite DYNAMIC = new Overwrite(1, null);
    /** The whole table. */
    public static final Overwrite TABLE = new Overwrite(3, null);

    private final int scope;
    private final String partition;

    private Overwrite(int scope, String partition) {
        this.scope = scope;
        this.partition = partition;
    }

    /**
     * Every partition matching {@code spec}: "k=v[/k=v...]", escaped as Paimon's partition paths
     * (PartitionPathUtils.generatePartitionPath without the trailing '/'); "" is the whole table.
     */
    public static Overwrite partition(String spec) {
        return new Overwrite(2, Objects.requireNonNull(spec, "spec"));
    }

    int scope() { return scope; }

    String partition() { return partition; }

    @Override
    public String toString() {
        switch (scope) {
        case 0: return "none";
        case 1: return "dynamic";
        case 2: return "partition '" + partition + "'";
        default: return "table";
        }
    }
}
