package io.snapcommit.flink.internal;

import java.util.Collections;

import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.typeinfo.BasicTypeInfo;
import org.apache.flink.runtime.state.StateInitializationContext;

/**
 * The commit user in operator state, as Paimon's StateUtils keeps it: a union list state named
 * {@code commit_user_state} holding one value; restored when present (every subtask sees the
 * same), else the initial user the sink chose for writers and committer at job build time.
 */
final class CommitUserState {
    static final String NAME = "commit_user_state";

    private CommitUserState() {}

    static String restoreOrInit(StateInitializationContext context, String initial) throws Exception {
        ListState<String> state = context.getOperatorStateStore().getUnionListState(
            new ListStateDescriptor<>(NAME, BasicTypeInfo.STRING_TYPE_INFO));
        String value = null;
        for (String u : state.get()) {
            value = u;
            break;
        }
        if (value == null) value = initial;
        state.update(Collections.singletonList(value));
        return value;
    }
}
