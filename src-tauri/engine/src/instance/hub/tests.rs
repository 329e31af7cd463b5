use super::*;
use serde_json::json;
use switchboard_core::{normalize, AgentStatus, Ages, Millis};

fn event(id: &str, status: &str, at: Millis) -> Input {
    Input::Hook(Box::new(normalize("custom", &json!({"sessionId": id, "status": status}), at).unwrap()))
}

#[test]
fn every_subscriber_gets_every_update_in_order() {
    let hub = Hub::new();
    let (first, second) = (hub.updates(), hub.updates());
    let mut got = [Vec::new(), Vec::new()];
    for input in
        [event("a", "working", 1), event("a", "blocked", 2), Input::Remove { session_id: "a".into(), reply: None }]
    {
        hub.apply(input);
        // Subscribers that keep up: each takes what came before the next input.
        got[0].extend(first.try_iter());
        got[1].extend(second.try_iter());
    }
    for got in got {
        assert_eq!(got.len(), 3);
        let Update::Changed(blocked) = &got[1] else { panic!("{got:?}") };
        assert_eq!(blocked.change.session.status, Some(AgentStatus::Blocked));
        assert!(blocked.change.notify);
        assert_eq!(got[2], Update::Removed("a".into()));
    }
}

/// A subscriber that comes later (the journal, started by the first link) knows the sessions
/// already there from the snapshot: it must hear when one of them goes.
#[test]
fn a_later_subscriber_is_told_of_the_removal_of_a_session_that_was_there_before_it() {
    let hub = Hub::new();
    hub.apply(event("before", "working", 1));
    let late = hub.updates();
    hub.apply(Input::Remove { session_id: "before".into(), reply: None });
    assert_eq!(late.try_iter().collect::<Vec<_>>(), [Update::Removed("before".into())]);
}

#[test]
fn a_subscriber_that_went_away_is_dropped_and_the_others_go_on() {
    let hub = Hub::new();
    drop(hub.updates());
    let kept = hub.updates();
    hub.apply(event("a", "working", 1));
    hub.apply(event("b", "working", 1));
    assert_eq!(kept.try_iter().count(), 2);
    assert_eq!(hub.state().subscribers.len(), 1);
}

/// Issue 24: an answer typed from the board is in the session's history; its status is not
/// touched, and nobody is notified. Whoever sent it hears back once the history has it.
#[test]
fn an_answer_typed_from_the_board_is_a_history_entry_and_nothing_else() {
    let hub = Hub::new();
    hub.apply(event("a", "waiting", 1));
    let updates = hub.updates();
    let said = "Answered from Switchboard: 2 (Vue)".to_owned();
    let (written, heard) = tokio::sync::oneshot::channel();
    hub.apply(Input::Answered { session_id: "a".into(), said, at: 5, reply: Some(written) });
    let (not_written, unheard) = tokio::sync::oneshot::channel();
    hub.apply(Input::Answered { session_id: "nobody".into(), said: "x".into(), at: 6, reply: Some(not_written) });
    assert_eq!((heard.blocking_recv(), unheard.blocking_recv()), (Ok(true), Ok(false)));
    let got: Vec<Update> = updates.try_iter().collect();
    assert_eq!(got.len(), 1, "{got:?}");
    let Update::Changed(changed) = &got[0] else { panic!("{got:?}") };
    assert_eq!((changed.change.session.status, changed.change.notify), (Some(AgentStatus::Waiting), false));
    let history = hub.history("a", Vec::new());
    let last = history.last().unwrap();
    assert_eq!((last.at, last.message.as_deref()), (5, Some("Answered from Switchboard: 2 (Vue)")));
}

#[test]
fn history_includes_the_change_just_made_before_the_store_has_it() {
    let hub = Hub::new();
    hub.apply(event("a", "working", 1));
    hub.apply(event("a", "done", 2));
    let history = hub.history("a", Vec::new());
    assert_eq!(history.iter().map(|e| e.status).collect::<Vec<_>>(), [AgentStatus::Working, AgentStatus::Done]);
    // Entries the store already committed are not listed twice.
    let stored = history[..1].to_vec();
    assert_eq!(hub.history("a", stored).len(), 2);
}

#[test]
fn a_full_queue_drops_inputs_from_agents_and_counts_them_but_never_a_users_action() {
    let (inputs, mut queue) = inputs(4);
    let sent = (0..20).filter(|i| inputs.send(event(&format!("q{i}"), "working", 1))).count();
    assert_eq!((sent, inputs.dropped()), (4, 16));
    assert!(inputs.push(Input::Remove { session_id: "q0".into(), reply: None }), "the user's action is queued");
    // Taking one makes room for one more.
    assert!(matches!(queue.try_recv(), Some(Input::Hook(_))));
    assert!(inputs.send(event("again", "working", 1)));
    assert!(!inputs.send(event("over", "working", 1)));
}

/// A user's remove and a hook for the same session, in one queue: whatever was acknowledged
/// before the remove is applied before it, so the session ends removed, and what the
/// subscribers were told agrees with the snapshot.
#[tokio::test]
async fn a_remove_after_an_acknowledged_hook_removes_the_session_whatever_the_timing() {
    let hub = Arc::new(Hub::new());
    let updates = hub.updates();
    let (inputs, queue) = inputs(1024);
    let stop = CancellationToken::new();
    let running = tokio::spawn(Arc::clone(&hub).run(queue, stop.clone()));
    for n in 0..200u64 {
        let id = format!("raced-{n}");
        assert!(inputs.send(event(&id, "working", n)));
        let removed = inputs.ask(|reply| Input::Remove { session_id: id.clone(), reply }).await;
        assert_eq!(removed, Some(true), "{id}: the hook acknowledged first is there to remove");
    }
    assert!(hub.snapshot().sessions.is_empty());
    // A subscriber that read nothing meanwhile is told nothing: each session came and went.
    let mut told = std::collections::HashSet::new();
    for update in updates.try_iter() {
        match update {
            Update::Changed(changed) => told.insert(changed.change.session.session_id.clone()),
            Update::Removed(id) => told.remove(&id),
            Update::Notices(_) => false,
        };
    }
    assert!(told.is_empty(), "what it was told agrees with the snapshot: {told:?}");
    stop.cancel();
    running.await.unwrap();
}

/// Issue 47: what queued while the reducer was busy is applied as one batch and handed to each
/// subscriber once — one lock and at most one wake per subscriber per batch, not per event — in
/// the reducer's order; an input on its own is a batch of its own.
#[tokio::test(flavor = "current_thread")]
async fn what_queued_meanwhile_reaches_each_subscriber_as_one_batch_in_order() {
    let hub = Arc::new(Hub::new());
    let batches = Arc::new(Mutex::new(Vec::<Vec<String>>::new()));
    let seen = Arc::clone(&batches);
    hub.subscribe_batches(move |updates| {
        let told = updates.iter().map(|update| match update {
            Update::Changed(changed) => {
                format!("{}:{:?}", changed.change.session.session_id, changed.change.session.status)
            }
            Update::Removed(id) => format!("{id}:removed"),
            Update::Notices(_) => "notices".to_owned(),
        });
        seen.lock().unwrap().push(told.collect());
        true
    });
    let mailbox = hub.updates();
    let (inputs, queue) = inputs(1024);
    // Queued before the reducer runs: all of it is waiting when it first wakes.
    for n in 0..5u64 {
        assert!(inputs.send(event("a", if n % 2 == 0 { "working" } else { "blocked" }, n)));
    }
    inputs.push(Input::Remove { session_id: "a".into(), reply: None });
    let stop = CancellationToken::new();
    let running = tokio::spawn(Arc::clone(&hub).run(queue, stop.clone()));
    // An action asked after it: applied in a batch of its own, once the first is handed over.
    assert_eq!(inputs.ask(|reply| Input::ClearUnread { session_id: "a".into(), reply }).await, Some(false));
    assert!(inputs.send(event("b", "working", 9)));
    assert_eq!(inputs.ask(|reply| Input::RemoveEnded { reply }).await, Some(0));
    stop.cancel();
    running.await.unwrap();
    let batches = batches.lock().unwrap().clone();
    assert_eq!(
        batches[0],
        ["a:Some(Working)", "a:Some(Blocked)", "a:Some(Working)", "a:Some(Blocked)", "a:Some(Working)", "a:removed"]
    );
    assert_eq!(batches[1..], [["b:Some(Working)"]], "{batches:?}");
    // A mailbox subscriber gets the same updates, in the same order.
    let got: Vec<Update> = mailbox.try_iter().collect();
    assert_eq!(got.len(), 7);
    assert_eq!(got[5], Update::Removed("a".into()));
}

#[test]
fn time_and_focus_arrive_as_inputs() {
    let hub = Hub::new();
    hub.apply(event("a", "working", 1_000));
    hub.apply(Input::WindowFocused(true));
    hub.apply(event("a", "done", 2_000));
    assert!(!hub.snapshot().sessions[0].unread, "the window was focused");
    let ages = Ages { stale_after: 10_000, archive_after: 100_000 };
    hub.apply(event("b", "working", 2_000));
    hub.apply(Input::Tick { now: 20_000, ages });
    let snapshot = hub.snapshot();
    assert!(snapshot.sessions.iter().any(|s| s.session_id == "b" && s.stale));
}
