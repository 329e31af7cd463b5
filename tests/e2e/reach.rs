//! Reach in the Connections panel (issue 25), in the real app: the settings saved in
//! `settings.json` are shown, a URL that cannot be used is refused inline, and the webhook's Test
//! button sends one message to a server here and shows its answer.
//!
//! `REACH_SCREENSHOT=FILE` keeps a picture of the section (docs/review/reach-settings.png).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use fantoccini::Locator;
use serde_json::json;

use crate::harness::{App, Notify};

/// Answers 200 to each request on 127.0.0.1 and hands the body over.
fn receiver() -> (String, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/hooks/switchboard", listener.local_addr().expect("addr"));
    let (bodies, received) = mpsc::channel();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut length = 0usize;
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 && line.trim() != "" {
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
                line.clear();
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let _ = bodies.send(String::from_utf8_lossy(&body).into_owned());
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
        }
    });
    (url, received)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reach_settings_show_what_is_saved_and_the_test_button_says_what_came_back() {
    let (url, received) = receiver();
    let settings = json!({"reach": {
        "sound": ["blocked", "waiting"],
        "quietHours": {"enabled": true, "from": "22:00", "to": "07:00"},
        "webhook": {"enabled": true, "url": url, "includeText": false},
    }});
    let app = App::start_seeded(Notify::Off, &[], |state| {
        std::fs::create_dir_all(state).expect("the state dir");
        std::fs::write(state.join("settings.json"), settings.to_string()).expect("settings.json");
    })
    .await;
    app.wait_for_ui().await;
    app.click_test_id("connections-toggle").await;
    app.client
        .execute(
            r#"document.querySelector('[data-testid="reach-settings"]').scrollIntoView({block: 'start'});"#,
            vec![],
        )
        .await
        .expect("scroll to reach");
    // What settings.json holds.
    let checked = |test_id: &'static str| {
        let client = app.client.clone();
        async move {
            let element = client.find(Locator::Css(&format!(r#"[data-testid="{test_id}"]"#))).await.expect(test_id);
            element.prop("checked").await.expect("checked").as_deref() == Some("true")
        }
    };
    app.click_settled(r#"[data-testid="push-webhook-test"]"#).await;
    let result = app.text_of("push-webhook-result").await;
    assert_eq!(result, "Sent: the server answered 200.");
    let body: serde_json::Value =
        serde_json::from_str(&received.recv_timeout(Duration::from_secs(10)).expect("the test message")).unwrap();
    assert_eq!(body["test"], true);
    assert!(checked("push-webhook-enabled").await && checked("sound-blocked").await && checked("quiet-enabled").await);
    assert!(!checked("push-webhook-include-text").await && !checked("push-ntfy-enabled").await);

    // A URL without its scheme is refused inline, and nothing is saved.
    let ntfy = app.client.find(Locator::Css(r#"[data-testid="push-ntfy-url"]"#)).await.expect("ntfy url");
    ntfy.send_keys("ntfy.sh/my-topic").await.expect("type");
    app.click_test_id("push-ntfy-enabled").await;
    assert_eq!(app.text_of("push-ntfy-problem").await, "The URL must start with https:// or http://.");
    let saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(app.state_dir().join("settings.json")).expect("settings.json")).unwrap();
    assert_ne!(saved["reach"]["ntfy"]["enabled"], true, "{saved}");

    if let Ok(file) = std::env::var("REACH_SCREENSHOT") {
        // The section from its heading, in the panel (the window sits at the screen's origin).
        let rect = app
            .client
            .execute(
                r#"const section = document.querySelector('[data-testid="reach-settings"]');
                section.scrollIntoView({block: 'start'});
                // Below the panel's sticky top (title, summary, Check again).
                let scroller = section.parentElement;
                while (scroller && scroller.scrollHeight <= scroller.clientHeight) scroller = scroller.parentElement;
                const top = document.querySelector('.connections-top').getBoundingClientRect().bottom;
                if (scroller) scroller.scrollTop -= top - section.getBoundingClientRect().top + 4;
                const drawer = document.querySelector('.connections-drawer').getBoundingClientRect();
                return [drawer.left, drawer.top, drawer.width, drawer.height].map(Math.round);"#,
                vec![],
            )
            .await
            .expect("the panel's place");
        app.wait_still(r#"[data-testid="reach-settings"]"#).await;
        let [x, y, width, height] = [0, 1, 2, 3].map(|i| rect[i].as_i64().unwrap_or(0));
        let shot = format!("xwd -root -silent | /usr/bin/convert xwd:- -crop {width}x{height}+{x}+{y} +repage {file}");
        let status = Command::new("sh").args(["-c", &shot]).status().expect("run xwd");
        assert!(status.success(), "{shot}: {status}");
    }
    app.close().await;
}
