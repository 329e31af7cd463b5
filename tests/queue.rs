//! The needs-you queue (issue 45): what needs the user is listed with this machine's held permission first, whatever a
//! box sends: `status`'s table, fed the snapshot an instance following a hostile box would hold.

use serde_json::json;
use switchboard_core::{AgentStatus, Reducer, StatusEvent};

#[test]
fn status_lists_this_machines_held_permission_above_a_boxs_900_blocked_rows() {
    let now = 1_700_000_000_000;
    let mut board = Reducer::new();
    for n in 0..900 {
        // Blocked "since" the far future, clamped to this clock on arrival.
        let event = StatusEvent {
            agent: "claude".into(),
            session_id: format!("b{n}"),
            status: Some(AgentStatus::Blocked),
            ts: u64::MAX / 2,
            ..Default::default()
        };
        let mut blocked = Reducer::new().apply(&event, false).unwrap().session;
        blocked.decision = Some(1);
        board.mirror("evil", blocked, false, now);
    }
    let payload = json!({"hook_event_name": "PermissionRequest", "session_id": "mine", "tool_name": "Bash"});
    let mut asks = switchboard_core::normalize("claude", &payload, now - 60_000).unwrap();
    asks.decision = Some(7);
    board.apply(&asks, false).unwrap();
    let table = switchboard_engine::client::status::table(&board.snapshot(), now, 200);
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert_eq!(rows.len(), 901, "{table}");
    assert!(rows[0].contains("mine") && !rows[0].contains("evil:"), "first row: {}", rows[0]);
}
