//! What the user chose in the app and the instance must know: `<state dir>/settings.json`
//! (0600, written atomically). A missing or unreadable file means the defaults; `serve` can be
//! given the same through `SWITCHBOARD_DECIDE` (see [`crate::config::Config`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::{DEFAULT_HOLD, MAX_HOLD, MIN_HOLD};

pub const SETTINGS_FILE: &str = "settings.json";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// CLIs whose permission prompts wait for Allow / Deny from Switchboard (off by default).
    pub decide: BTreeSet<String>,
    /// How long such a prompt waits before the CLI asks in its own terminal as usual.
    pub hold_seconds: u32,
    /// Other machines whose agents are on this board (issue 23), each reached by its command.
    pub remotes: Vec<RemoteSpec>,
    /// How a session that needs the user reaches them away from the board (issue 25).
    pub reach: Reach,
}

/// Sound, quiet hours and push channels; all off by default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct Reach {
    /// The statuses (`waiting`, `blocked`, `done`) that play a tone in the board when a session
    /// newly reaches one; none by default.
    pub sound: Vec<String>,
    pub quiet_hours: QuietHours,
    /// An ntfy topic URL (`https://ntfy.sh/<topic>` or a self-hosted server's).
    pub ntfy: PushChannel,
    /// A URL that takes a JSON POST per session that needs the user.
    pub webhook: PushChannel,
    /// Answer from the phone (issue 49): a push the board could answer carries its buttons, and
    /// a tap comes back through the reply topic on the ntfy channel's server. Off by default.
    pub answer_from_phone: bool,
    /// The reply topic's name: 128 random bits in hex, made when the switch is first turned on.
    pub reply_topic: String,
    /// An access token for the reply topic on a server with access control (the phone sends it
    /// with each tap, the desktop subscribes with it); empty for none.
    pub reply_token: String,
}

/// Longest access token kept.
pub const MAX_TOKEN: usize = 256;

impl Reach {
    /// A reply topic ntfy takes: 1 to 64 of `[-_A-Za-z0-9]`.
    pub fn topic_ok(topic: &str) -> bool {
        (1..=64).contains(&topic.len()) && topic.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    }

    /// The ntfy server of the push channel: its URL without the topic.
    pub fn ntfy_server(&self) -> Option<&str> {
        let url = self.ntfy.url.trim().trim_end_matches('/');
        let (server, topic) = url.rsplit_once('/')?;
        (!server.ends_with('/') && !topic.is_empty()).then_some(server)
    }

    /// The reply topic's URL, when answering from the phone is on and can work: the switch on,
    /// the ntfy channel on, a topic.
    pub fn reply_url(&self) -> Option<String> {
        let server = self.ntfy_server().filter(|_| self.answer_from_phone && self.ntfy.active())?;
        Self::topic_ok(&self.reply_topic).then(|| format!("{server}/{}", self.reply_topic))
    }
}

/// A daily window of local time in which sound and push stay silent (OS notifications do not).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct QuietHours {
    pub enabled: bool,
    /// `HH:MM`, local time; the window may cross midnight (22:00–07:00).
    pub from: String,
    pub to: String,
}

impl Default for QuietHours {
    fn default() -> Self {
        Self { enabled: false, from: "22:00".into(), to: "07:00".into() }
    }
}

impl QuietHours {
    /// Whether `minute` (of the local day, 0..1440) falls in the window; never when off or when
    /// a time does not read.
    pub fn covers(&self, minute: u16) -> bool {
        let (Some(from), Some(to)) = (minute_of_day(&self.from), minute_of_day(&self.to)) else { return false };
        if !self.enabled || from == to {
            return false;
        }
        if from < to {
            (from..to).contains(&minute)
        } else {
            minute >= from || minute < to
        }
    }
}

/// `HH:MM` (24 h) as minutes since midnight.
pub fn minute_of_day(text: &str) -> Option<u16> {
    let (hours, minutes) = text.trim().split_once(':')?;
    let (hours, minutes): (u16, u16) = (hours.parse().ok()?, minutes.parse().ok()?);
    (hours < 24 && minutes < 60 && text.trim().len() <= 5).then_some(hours * 60 + minutes)
}

/// One outbound push channel.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct PushChannel {
    pub enabled: bool,
    pub url: String,
    /// The privacy switch: only when on does a message carry the session's words — its title,
    /// project, question or command, and folder. Off: agent, status, host and a short id.
    pub include_text: bool,
}

/// Longest push URL kept.
pub const MAX_URL: usize = 2_048;
/// The statuses a tone can be chosen for.
pub const SOUND_STATUSES: [&str; 3] = ["waiting", "blocked", "done"];

impl PushChannel {
    /// Why `url` cannot be posted to, if it cannot: an `http(s)://host…` URL without spaces, at
    /// most [`MAX_URL`] bytes. The settings show this sentence as it is (`push_url_problem`).
    pub fn url_problem(url: &str) -> Option<String> {
        let url = url.trim();
        if url.is_empty() {
            return Some("Enter a URL.".into());
        }
        if url.len() > MAX_URL {
            return Some(format!("A URL has at most {MAX_URL} characters."));
        }
        let Some(rest) = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://")) else {
            return Some("The URL must start with https:// or http://.".into());
        };
        let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
        if host.is_empty() || host.starts_with(':') || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Some("The URL needs a host and no spaces.".into());
        }
        None
    }

    /// Enabled with a URL that can be posted to.
    pub fn active(&self) -> bool {
        self.enabled && Self::url_problem(&self.url).is_none()
    }
}

/// A remote: a name for the board, and the command that gives a pipe to it (`ssh devbox`,
/// `docker exec -i box`); Switchboard appends `sh -s` and speaks to the shell there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RemoteSpec {
    pub name: String,
    pub command: Vec<String>,
}

/// Remotes followed at once, at most.
pub const MAX_REMOTES: usize = 32;

impl RemoteSpec {
    /// Why this remote cannot be kept, if it cannot.
    pub fn problem(&self) -> Option<String> {
        let name = &self.name;
        let valid = !name.is_empty()
            && name.len() <= 40
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && !name.starts_with(['-', '.']);
        if !valid {
            return Some(format!(
                "`{name}` cannot name a remote: use 1 to 40 letters, digits, `-`, `_` or `.` (not first)"
            ));
        }
        if name == switchboard_core::session::LOCAL_HOST {
            return Some("`local` names this machine; pick another name".into());
        }
        if self.command.is_empty() || self.command[0].trim().is_empty() {
            return Some(format!("remote `{name}` needs a command, e.g. `-- ssh {name}`"));
        }
        None
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            decide: BTreeSet::new(),
            hold_seconds: DEFAULT_HOLD.as_secs() as u32,
            remotes: Vec::new(),
            reach: Reach::default(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot save the settings to {}: {source}", path.display())]
    Write { path: PathBuf, source: std::io::Error },
}

impl Settings {
    pub fn path(state_dir: &Path) -> PathBuf {
        state_dir.join(SETTINGS_FILE)
    }

    /// The saved settings, cleaned up; the defaults when there are none or they cannot be read.
    pub fn load(state_dir: &Path) -> Self {
        let text = crate::files::read_small(&Self::path(state_dir), 64 * 1024);
        let settings: Self = text.and_then(|text| serde_json::from_slice(&text).ok()).unwrap_or_default();
        settings.cleaned()
    }

    pub fn save(&self, state_dir: &Path) -> Result<(), SettingsError> {
        let path = Self::path(state_dir);
        let json = serde_json::to_vec_pretty(&self.clone().cleaned()).unwrap_or_default();
        crate::files::write_atomic(&path, &json, crate::platform::permissions(0o600))
            .map_err(|source| SettingsError::Write { path, source })
    }

    /// Only CLIs that can take a decision, and a hold between [`MIN_HOLD`] and [`MAX_HOLD`].
    pub fn cleaned(mut self) -> Self {
        // Only CLIs whose permission hook takes a decision (`Agent::decision_event`).
        self.decide.retain(|cli| switchboard_core::agent::deciding().any(|id| id == cli));
        self.hold_seconds = self.hold_seconds.clamp(MIN_HOLD.as_secs() as u32, MAX_HOLD.as_secs() as u32);
        let mut names = BTreeSet::new();
        self.remotes.retain(|remote| remote.problem().is_none() && names.insert(remote.name.clone()));
        self.remotes.truncate(MAX_REMOTES);
        let mut sounds = BTreeSet::new();
        self.reach.sound.retain(|status| SOUND_STATUSES.contains(&status.as_str()) && sounds.insert(status.clone()));
        for channel in [&mut self.reach.ntfy, &mut self.reach.webhook] {
            channel.url = channel.url.trim().to_owned();
            if channel.url.len() > MAX_URL {
                channel.url.clear();
            }
            // A channel without a URL it can post to stays off (the URL is kept to be fixed).
            channel.enabled &= Self::active_url(&channel.url);
        }
        let reach = &mut self.reach;
        if !Reach::topic_ok(&reach.reply_topic) {
            reach.reply_topic =
                if reach.answer_from_phone { crate::instance::act::phone::token::new_topic() } else { String::new() };
        }
        // It goes into a header the phone sends: an ntfy token's characters only.
        reach.reply_token = reach.reply_token.trim().to_owned();
        let token_ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~' | '+' | '/' | '=');
        if reach.reply_token.len() > MAX_TOKEN || !reach.reply_token.chars().all(token_ok) {
            reach.reply_token.clear();
        }
        let quiet = &mut self.reach.quiet_hours;
        for (time, default) in [(&mut quiet.from, "22:00"), (&mut quiet.to, "07:00")] {
            *time = match minute_of_day(time) {
                Some(minute) => format!("{:02}:{:02}", minute / 60, minute % 60),
                None => default.to_owned(),
            };
        }
        self
    }

    fn active_url(url: &str) -> bool {
        PushChannel::url_problem(url).is_none()
    }

    pub fn hold(&self) -> Duration {
        Duration::from_secs(u64::from(self.hold_seconds))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn settings_round_trip_privately_and_bad_values_are_cleaned() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Settings::load(dir.path()), Settings::default(), "none saved: the defaults, nothing held");
        assert!(Settings::default().decide.is_empty());
        let chosen = Settings {
            decide: ["claude".to_owned(), "cursor".to_owned(), "gemini".to_owned()].into(),
            hold_seconds: 9_999,
            remotes: vec![
                RemoteSpec { name: "devbox".into(), command: vec!["ssh".into(), "devbox".into()] },
                RemoteSpec { name: "devbox".into(), command: vec!["ssh".into(), "other".into()] },
                RemoteSpec { name: "local".into(), command: vec!["ssh".into(), "x".into()] },
                RemoteSpec { name: "a b".into(), command: vec!["ssh".into()] },
                RemoteSpec { name: "empty".into(), command: vec![] },
            ],
            reach: Reach::default(),
        };
        chosen.save(dir.path()).unwrap();
        let loaded = Settings::load(dir.path());
        assert_eq!(loaded.decide, ["claude".to_owned()].into(), "only CLIs that can take a decision");
        assert_eq!(loaded.hold(), MAX_HOLD);
        assert_eq!(loaded.remotes, chosen.remotes[..1], "one per name, valid names, a command each");
        let mode = std::fs::metadata(Settings::path(dir.path())).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        std::fs::write(Settings::path(dir.path()), b"{not json").unwrap();
        assert_eq!(Settings::load(dir.path()), Settings::default());
    }

    /// Issue 25: a settings file from before reach loads with reach off; what reach cannot use is
    /// cleaned (unknown statuses, bad times, a channel on without a URL it can post to).
    #[test]
    fn reach_is_off_in_old_files_and_cleaned_in_new_ones() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(Settings::path(dir.path()), br#"{"decide":["claude"],"holdSeconds":30,"remotes":[]}"#).unwrap();
        let old = Settings::load(dir.path());
        assert_eq!(old.decide, ["claude".to_owned()].into());
        assert_eq!(old.reach, Reach::default());
        assert!(!old.reach.ntfy.enabled && !old.reach.webhook.enabled && old.reach.sound.is_empty());
        assert!(!old.reach.quiet_hours.enabled);

        let json = br#"{"reach":{"sound":["blocked","working","blocked","done"],
            "quietHours":{"enabled":true,"from":"7:5","to":"25:00"},
            "ntfy":{"enabled":true,"url":" https://ntfy.sh/my-topic ","includeText":true},
            "webhook":{"enabled":true,"url":"not a url"}}}"#;
        std::fs::write(Settings::path(dir.path()), json).unwrap();
        let reach = Settings::load(dir.path()).reach;
        assert_eq!(reach.sound, ["blocked", "done"]);
        assert_eq!((reach.quiet_hours.from.as_str(), reach.quiet_hours.to.as_str()), ("07:05", "07:00"));
        assert_eq!(
            reach.ntfy,
            PushChannel { enabled: true, url: "https://ntfy.sh/my-topic".into(), include_text: true }
        );
        assert_eq!(reach.webhook, PushChannel { enabled: false, url: "not a url".into(), include_text: false });
    }

    #[test]
    fn a_push_url_is_http_or_https_with_a_host() {
        for good in ["https://ntfy.sh/topic", "http://127.0.0.1:8080/hook", "https://hooks.example.com/a?b=c"] {
            assert_eq!(PushChannel::url_problem(good), None, "{good}");
        }
        for bad in ["", "ntfy.sh/topic", "ftp://x/y", "https://", "https:///path", "https://a b/c", "https://:80/x"] {
            assert!(PushChannel::url_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn quiet_hours_may_cross_midnight() {
        let window = |from: &str, to: &str| QuietHours { enabled: true, from: from.into(), to: to.into() };
        let night = window("22:00", "07:00");
        assert!(night.covers(22 * 60) && night.covers(0) && night.covers(6 * 60 + 59));
        assert!(!night.covers(7 * 60) && !night.covers(21 * 60 + 59));
        let lunch = window("12:00", "13:30");
        assert!(lunch.covers(12 * 60) && lunch.covers(13 * 60 + 29) && !lunch.covers(13 * 60 + 30));
        assert!(!window("09:00", "09:00").covers(9 * 60), "an empty window covers nothing");
        assert!(!QuietHours { enabled: false, ..night }.covers(23 * 60));
        assert_eq!(minute_of_day("24:00"), None);
        assert_eq!(minute_of_day("23:59"), Some(1439));
        assert_eq!(minute_of_day("noon"), None);
    }
}
