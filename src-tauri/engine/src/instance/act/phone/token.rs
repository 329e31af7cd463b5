//! One-time answer tokens (issue 49): what makes a tap on the phone impossible to forge or to
//! replay. Each button's body names a request (an opaque id this instance issued), the answer,
//! and `<expiry>.<HMAC-SHA256 over the three>` under a key made once per state directory and
//! never sent. The ledger remembers what it issued and which tokens were spent, each until its
//! expiry; a restart forgets both, so an older tap reads as unknown.

use std::collections::HashMap;
use std::path::Path;

use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;
use switchboard_core::Millis;

/// Where the key is kept, in the state directory (0600).
pub const KEY_FILE: &str = "phone.key";
/// Requests remembered at once, at most; past it the oldest go.
const MOST_ISSUED: usize = 512;

/// Why a tap was not applied; the follow-up push says it in these words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TapError {
    #[error("Not applied: the tap's token does not match (forged or altered)")]
    Tampered,
    #[error("Expired")]
    Expired,
    #[error("Already used: each button works once")]
    Replayed,
    #[error("Not applied: Switchboard does not know that request (restarted since?)")]
    Unknown,
    #[error("Already answered at the desk")]
    Closed,
    #[error("Not applied: the session changed since; answer at the desk")]
    Changed,
    #[error("Not applied: {0}")]
    Refused(String),
}

/// The key tokens are signed with: 256 random bits.
pub struct Key([u8; 32]);

impl Key {
    pub fn random() -> Self {
        let mut bytes = [0u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        Self(bytes)
    }

    /// The state directory's key, made (and saved, 0600) the first time. One that cannot be
    /// saved still signs for this run: a restart then refuses the older taps as unknown anyway.
    pub fn load_or_create(state_dir: &Path) -> Self {
        let path = state_dir.join(KEY_FILE);
        let saved = crate::files::read_small(&path, 256).and_then(|text| parse_hex(text.trim_ascii()));
        if let Some(bytes) = saved.and_then(|bytes| <[u8; 32]>::try_from(bytes).ok()) {
            return Self(bytes);
        }
        let key = Self::random();
        if let Err(error) =
            crate::files::write_atomic(&path, hex(&key.0).as_bytes(), crate::platform::permissions(0o600))
        {
            tracing::warn!(%error, "cannot save the phone answers' key; taps work until a restart");
        }
        key
    }

    fn mac(&self, request: &str, answer: &str, expiry: Millis) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key length");
        // Lengths first: no two (request, answer) pairs run together into the same bytes.
        for part in [request.as_bytes(), answer.as_bytes()] {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        mac.update(&expiry.to_be_bytes());
        mac
    }

    /// `<expiry>.<hex HMAC>`.
    pub fn sign(&self, request: &str, answer: &str, expiry: Millis) -> String {
        format!("{expiry}.{}", hex(&self.mac(request, answer, expiry).finalize().into_bytes()))
    }

    /// The token's expiry when it is this key's signature over `request` and `answer` (compared
    /// in constant time), else [`TapError::Tampered`].
    pub fn check(&self, request: &str, answer: &str, token: &str) -> Result<Millis, TapError> {
        let (expiry, signature) = token.split_once('.').ok_or(TapError::Tampered)?;
        let expiry: Millis = expiry.parse().map_err(|_| TapError::Tampered)?;
        let signature = parse_hex(signature.as_bytes()).ok_or(TapError::Tampered)?;
        self.mac(request, answer, expiry).verify_slice(&signature).map_err(|_| TapError::Tampered)?;
        Ok(expiry)
    }
}

/// What a request answers: a held permission (its hold's id) or a question (its fingerprint).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Hold(u64),
    Question(String),
}

/// A request the board offered on the phone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub session_id: String,
    pub target: Target,
    /// What the follow-up names (`Bash: npm test`, or without the words the agent and short id).
    pub what: String,
    pub expires: Millis,
}

/// A tap as it comes back: the body of the button the phone sent.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Tap {
    pub v: u32,
    pub request: String,
    pub answer: String,
    pub token: String,
}

/// The requests issued and the tokens spent.
pub struct Ledger {
    key: Key,
    issued: HashMap<String, Request>,
    spent: HashMap<String, Millis>,
}

impl Ledger {
    pub fn new(key: Key) -> Self {
        Self { key, issued: HashMap::new(), spent: HashMap::new() }
    }

    /// Issues a request and a tap (its body) for each answer.
    pub fn issue(&mut self, request: Request, answers: &[&str], now: Millis) -> Vec<Tap> {
        self.forget(now);
        if self.issued.len() >= MOST_ISSUED {
            let oldest = self.issued.iter().min_by_key(|(_, r)| r.expires).map(|(id, _)| id.clone());
            oldest.map(|id| self.issued.remove(&id));
        }
        let mut id = [0u8; 12];
        rand::rng().fill_bytes(&mut id);
        let id = hex(&id);
        let taps = answers
            .iter()
            .map(|answer| Tap {
                v: 1,
                request: id.clone(),
                answer: (*answer).to_owned(),
                token: self.key.sign(&id, answer, request.expires),
            })
            .collect();
        self.issued.insert(id, request);
        taps
    }

    /// The request and answer of a genuine, unexpired, unspent tap of a known request — the
    /// token spent from now on — or why not.
    pub fn verify(&mut self, tap: &Tap, now: Millis) -> Result<Request, TapError> {
        let expiry = self.key.check(&tap.request, &tap.answer, &tap.token)?;
        if expiry <= now {
            return Err(TapError::Expired);
        }
        self.forget(now);
        if self.spent.contains_key(&tap.token) || self.answered(&tap.request) {
            return Err(TapError::Replayed);
        }
        let request = self.issued.get(&tap.request).cloned().ok_or(TapError::Unknown)?;
        // One answer per request: the other buttons of its message are spent with it.
        self.spent.insert(tap.token.clone(), expiry);
        self.issued.remove(&tap.request);
        self.spent.insert(format!("request:{}", tap.request), expiry);
        Ok(request)
    }

    /// What the request's follow-up names, while it is remembered.
    pub fn what(&self, request: &str) -> Option<String> {
        self.issued.get(request).map(|request| request.what.clone())
    }

    /// Whether the request was answered already (its buttons are spent).
    pub fn answered(&self, request: &str) -> bool {
        self.spent.contains_key(&format!("request:{request}"))
    }

    fn forget(&mut self, now: Millis) {
        self.issued.retain(|_, request| request.expires > now);
        self.spent.retain(|_, expiry| *expiry > now);
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn parse_hex(text: &[u8]) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    text.chunks(2).map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?)).collect()
}

/// 128 random bits in hex: a new reply topic's name.
pub fn new_topic() -> String {
    let mut bytes = [0u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    hex(&bytes)
}
