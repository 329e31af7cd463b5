use super::*;
use serde_json::json;
use switchboard_core::{normalize, AgentStatus, Reducer};

/// The changes a reducer makes for `events` (id, status), as the hub would publish them.
fn changes(events: &[(&str, &str)]) -> Vec<Update> {
    let mut reducer = Reducer::new();
    events
        .iter()
        .enumerate()
        .filter_map(|(at, (id, status))| {
            let event = normalize("custom", &json!({"sessionId": id, "status": status}), at as u64 + 1).unwrap();
            reducer.apply(&event, false)
        })
        .map(|change| {
            Update::Changed(Arc::new(Changed {
                change,
                event_title: None,
                agent_title: None,
                history: None,
                transcript_from: None,
            }))
        })
        .collect()
}

fn status(update: &Update) -> (String, Option<AgentStatus>, Option<AgentStatus>, bool) {
    let Update::Changed(changed) = update else { panic!("{update:?}") };
    let c = &changed.change;
    (c.session.session_id.clone(), c.previous, c.session.status, c.notify)
}

#[test]
fn a_subscriber_that_keeps_up_gets_every_update_in_order() {
    let (poster, updates) = mailbox(None);
    for update in changes(&[("a", "working"), ("a", "blocked"), ("a", "working")]) {
        assert!(poster.post(&update));
        let got = updates.try_recv().expect("one waits");
        assert_eq!(got, update);
    }
    assert_eq!(updates.try_recv(), Err(TryRecvError::Empty));
}

/// Puts the subscriber far behind: [`MERGE_AFTER`] updates it has not taken.
fn far_behind(poster: &Poster) {
    for _ in 0..MERGE_AFTER {
        poster.post(&Update::Notices(Vec::new()));
    }
}

/// What it gets, past the filler.
fn taken(updates: &Updates) -> Vec<Update> {
    updates.try_iter().filter(|u| !matches!(u, Update::Notices(_))).collect()
}

#[test]
fn a_subscriber_a_little_behind_still_gets_every_change_in_order() {
    let (poster, updates) = mailbox(None);
    for update in changes(&[("a", "working"), ("a", "done"), ("b", "working")]) {
        poster.post(&update);
    }
    poster.post(&Update::Removed("b".into()));
    let got: Vec<_> = taken(&updates);
    assert_eq!(got.len(), 4, "{got:?}");
    assert_eq!(status(&got[0]).2, Some(AgentStatus::Working), "the turn opening is seen");
    assert_eq!(status(&got[1]).2, Some(AgentStatus::Done));
    assert_eq!(got[3], Update::Removed("b".into()), "told of b, so told it went");
}

#[test]
fn one_far_behind_gets_each_session_once_in_its_last_state_and_a_waiting_notification_kept() {
    let (poster, updates) = mailbox(None);
    far_behind(&poster);
    let flood = changes(&[("a", "working"), ("b", "working"), ("a", "blocked"), ("b", "done"), ("a", "blocked")]);
    for update in &flood {
        poster.post(update);
    }
    assert_eq!(updates.waiting(), MERGE_AFTER + 2, "one change per session");
    let got: Vec<_> = taken(&updates).iter().map(status).collect();
    // `a` still blocked: the notification asked for by the first blocked is kept.
    assert_eq!(got[0], ("a".into(), None, Some(AgentStatus::Blocked), true));
    assert_eq!(got[1].0, "b");
    assert_eq!(got[1].2, Some(AgentStatus::Done));
}

/// The index of waiting changes is kept only once the subscriber falls behind (issue 47): it is
/// read off the queue then, so a change that waited from before is merged into all the same.
#[test]
fn a_change_that_waited_from_before_it_fell_behind_is_merged_into() {
    let (poster, updates) = mailbox(None);
    let flood = changes(&[("a", "working"), ("b", "working"), ("a", "blocked")]);
    poster.post(&flood[0]);
    poster.post(&flood[1]);
    far_behind(&poster);
    poster.post(&flood[2]);
    assert_eq!(updates.waiting(), MERGE_AFTER + 2, "a's second change went into its first");
    let got: Vec<_> = updates.try_iter().filter(|u| !matches!(u, Update::Notices(_))).map(|u| status(&u)).collect();
    assert_eq!(
        got,
        [("a".into(), None, Some(AgentStatus::Blocked), true), ("b".into(), None, Some(AgentStatus::Working), false)]
    );
    // Caught up: a change and a removal are posted, and taken, as they come.
    let later = changes(&[("c", "working")]);
    poster.post(&later[0]);
    poster.post(&Update::Removed("c".into()));
    assert_eq!(updates.try_iter().collect::<Vec<_>>(), [later[0].clone(), Update::Removed("c".into())]);
}

#[test]
fn a_notification_for_a_status_already_left_is_not_kept() {
    let (poster, updates) = mailbox(None);
    far_behind(&poster);
    for update in changes(&[("a", "working"), ("a", "blocked"), ("a", "working")]) {
        poster.post(&update);
    }
    let got: Vec<_> = taken(&updates).iter().map(status).collect();
    assert_eq!(got, [("a".into(), None, Some(AgentStatus::Working), false)]);
}

#[test]
fn a_session_that_came_and_went_while_far_behind_is_not_news_but_a_known_ones_removal_is() {
    let (poster, updates) = mailbox(None);
    let seen = changes(&[("known", "working")]);
    poster.post(&seen[0]);
    assert!(updates.try_recv().is_ok());
    far_behind(&poster);
    // A flood of ids come and go; only the removal of the one it knew waits.
    for n in 0..1_000 {
        let id = format!("flood-{n}");
        poster.post(&changes(&[(&id, "working")])[0]);
        poster.post(&Update::Removed(id));
    }
    poster.post(&Update::Removed("known".into()));
    assert_eq!(updates.waiting(), MERGE_AFTER + 1);
    assert_eq!(taken(&updates), [Update::Removed("known".into())]);
    assert_eq!(updates.try_recv(), Err(TryRecvError::Empty));
}

/// Bounded however long the flood, and every session it ends up knowing is one the hub has.
#[test]
fn what_waits_stays_bounded_by_the_sessions_and_agrees_with_the_hub_in_the_end() {
    let (poster, updates) = mailbox(None);
    let mut reducer = Reducer::new();
    let mut most = 0;
    let mut known = HashSet::default();
    for n in 0..60_000u64 {
        let id = format!("s{}", n % 500);
        let status = ["working", "blocked", "done"][(n % 3) as usize];
        let event = normalize("custom", &json!({"sessionId": id, "status": status}), n + 1).unwrap();
        if let Some(change) = reducer.apply(&event, false) {
            let changed =
                Changed { change, event_title: None, agent_title: None, history: None, transcript_from: None };
            poster.post(&Update::Changed(Arc::new(changed)));
        }
        if n % 7 == 0 {
            let gone = format!("s{}", (n / 7) % 500);
            if reducer.remove(&gone).is_some() {
                poster.post(&Update::Removed(gone));
            }
        }
        most = most.max(updates.waiting());
        // A slow subscriber: it takes one update for every thirty posted.
        if n % 30 == 0 {
            if let Ok(update) = updates.try_recv() {
                apply(&mut known, update);
            }
        }
    }
    assert!(most <= MERGE_AFTER + 2 * 500 + 1, "{most} waited");
    for update in updates.try_iter() {
        apply(&mut known, update);
    }
    let live: HashSet<String> = reducer.snapshot().sessions.into_iter().map(|s| s.session_id).collect();
    let extra: Vec<_> = known.difference(&live).collect();
    let missing: Vec<_> = live.difference(&known).collect();
    assert!(extra.is_empty() && missing.is_empty(), "told of but gone: {extra:?}; live but not told: {missing:?}");
}

fn apply(known: &mut HashSet<String>, update: Update) {
    match update {
        Update::Changed(changed) => known.insert(changed.change.session.session_id.clone()),
        Update::Removed(id) => known.remove(&id),
        Update::Notices(_) => false,
    };
}

#[test]
fn the_hub_gone_ends_the_loop_after_what_waits_and_a_subscriber_gone_stops_the_posts() {
    let (poster, updates) = mailbox(None);
    poster.post(&Update::Notices(vec!["x".into()]));
    drop(poster);
    assert!(updates.recv().is_ok());
    assert_eq!(updates.recv(), Err(RecvError));
    let (poster, updates) = mailbox(None);
    drop(updates);
    assert!(!poster.post(&Update::Notices(Vec::new())));
}
