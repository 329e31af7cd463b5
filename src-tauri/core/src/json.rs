//! A hook body as the normalizers read it: JSON borrowed from the request's bytes.
//!
//! `serde_json::Value` copies every key and string into its own allocation and (with the
//! workspace's `preserve_order`, which the installer needs so a settings file keeps its order)
//! files every key of every object in an `IndexMap` hashed with SipHash. A normalizer reads half
//! a dozen fields of a body and drops the rest, so that was about a third of the instructions the
//! hook thread spent per hook (issue 47). Here a string without escapes is a slice of the body,
//! and an object is its entries in order, looked up by a scan: a hook's objects hold a few keys.
//!
//! The reading methods are named and behave as `serde_json::Value`'s, so a normalizer reads the
//! same either way. A key given twice reads as its last value, as with `serde_json` (the entries
//! keep both: deduplicating as they come would cost a scan per key, quadratic in a hostile body).
//! Nesting is bounded by `serde_json`'s own limit of 128, so a hostile body cannot overflow the
//! stack. A `serde_json::Value` (a spooled body, a test's `json!`) is read through [`From`],
//! borrowing its strings.

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Serialize, Serializer};
pub use serde_json::Number;

/// A JSON value whose strings borrow from the text it was read from where they can.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Value<'a> {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Value<'a>>),
    Object(Map<'a>),
}

/// An object's entries, in the order they came.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Map<'a> {
    entries: Vec<(Cow<'a, str>, Value<'a>)>,
}

impl<'a> Value<'a> {
    /// Reads a whole JSON text; its strings borrow from `text` unless they hold escapes.
    /// The text is checked to be UTF-8 once, whole, rather than string by string as
    /// `serde_json::from_slice` does; bytes that are not UTF-8 are refused either way.
    pub fn parse(text: &'a [u8]) -> serde_json::Result<Self> {
        let text = std::str::from_utf8(text).map_err(serde::de::Error::custom)?;
        serde_json::from_str(text)
    }

    /// A member of an object by key, or an element of an array by index.
    pub fn get(&self, index: impl Index) -> Option<&Value<'a>> {
        index.index_into(self)
    }

    /// The value at a JSON Pointer (RFC 6901), as `serde_json::Value::pointer`.
    pub fn pointer(&self, pointer: &str) -> Option<&Value<'a>> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        rest.split('/').map(|token| token.replace("~1", "/").replace("~0", "~")).try_fold(self, |value, token| {
            match value {
                Value::Object(map) => map.get(&token),
                Value::Array(items) => parse_array_index(&token).and_then(|n| items.get(n)),
                _ => None,
            }
        })
    }

    pub fn as_object(&self) -> Option<&Map<'a>> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Value<'a>>> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(text) => Some(text),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(flag) => Some(*flag),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(number) => number.as_u64(),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Number(number) => number.as_i64(),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(number) => number.as_f64(),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }
}

/// What [`Value::get`] takes: a key (`&str`) or an index (`usize`), as `serde_json::Value::get`.
pub trait Index {
    fn index_into<'v, 'a>(&self, value: &'v Value<'a>) -> Option<&'v Value<'a>>;
}

impl Index for str {
    fn index_into<'v, 'a>(&self, value: &'v Value<'a>) -> Option<&'v Value<'a>> {
        value.as_object()?.get(self)
    }
}

impl Index for usize {
    fn index_into<'v, 'a>(&self, value: &'v Value<'a>) -> Option<&'v Value<'a>> {
        value.as_array()?.get(*self)
    }
}

impl<T: Index + ?Sized> Index for &T {
    fn index_into<'v, 'a>(&self, value: &'v Value<'a>) -> Option<&'v Value<'a>> {
        (**self).index_into(value)
    }
}

impl Index for String {
    fn index_into<'v, 'a>(&self, value: &'v Value<'a>) -> Option<&'v Value<'a>> {
        self.as_str().index_into(value)
    }
}

/// RFC 6901's array index: digits, no leading zero.
fn parse_array_index(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.len() > 1 && token.starts_with('0')) {
        return None;
    }
    token.parse().ok()
}

impl<'a> Map<'a> {
    pub fn new() -> Self {
        Self::default()
    }

    /// The key's value; a key given twice reads as its last value.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.entries.iter().rev().find(|(name, _)| name == key).map(|(_, value)| value)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets the key's value: in place if it is there, else at the end.
    pub fn insert(&mut self, key: impl Into<Cow<'a, str>>, value: Value<'a>) {
        let key = key.into();
        match self.entries.iter_mut().rev().find(|(name, _)| *name == key) {
            Some((_, slot)) => *slot = value,
            None => self.entries.push((key, value)),
        }
    }

    /// The entries in the order they came.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value<'a>)> {
        self.entries.iter().map(|(key, value)| (key.as_ref(), value))
    }

    pub fn values(&self) -> impl Iterator<Item = &Value<'a>> {
        self.entries.iter().map(|(_, value)| value)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl<'m, 'a> IntoIterator for &'m Map<'a> {
    type Item = (&'m str, &'m Value<'a>);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'m, (Cow<'a, str>, Value<'a>)>,
        fn(&'m (Cow<'a, str>, Value<'a>)) -> (&'m str, &'m Value<'a>),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(key, value)| (key.as_ref(), value))
    }
}

/// Compact JSON, as `serde_json::Value`'s `Display` writes it.
impl fmt::Display for Value<'_> {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(&serde_json::to_string(self).map_err(|_| fmt::Error)?)
    }
}

impl Serialize for Value<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(flag) => serializer.serialize_bool(*flag),
            Value::Number(number) => number.serialize(serializer),
            Value::String(text) => serializer.serialize_str(text),
            Value::Array(items) => serializer.collect_seq(items),
            Value::Object(map) => serializer.collect_map(map.iter()),
        }
    }
}

impl<'a> From<&'a serde_json::Value> for Value<'a> {
    fn from(value: &'a serde_json::Value) -> Self {
        match value {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(flag) => Value::Bool(*flag),
            serde_json::Value::Number(number) => Value::Number(number.clone()),
            serde_json::Value::String(text) => Value::String(Cow::Borrowed(text)),
            serde_json::Value::Array(items) => Value::Array(items.iter().map(Value::from).collect()),
            serde_json::Value::Object(map) => Value::Object(Map {
                entries: map.iter().map(|(key, value)| (Cow::Borrowed(key.as_str()), Value::from(value))).collect(),
            }),
        }
    }
}

impl<'de> Deserialize<'de> for Value<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_unit<E>(self) -> Result<Value<'de>, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value<'de>, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value<'de>, D::Error> {
        Deserialize::deserialize(deserializer)
    }

    fn visit_bool<E>(self, flag: bool) -> Result<Value<'de>, E> {
        Ok(Value::Bool(flag))
    }

    fn visit_i64<E>(self, number: i64) -> Result<Value<'de>, E> {
        Ok(Value::Number(number.into()))
    }

    fn visit_u64<E>(self, number: u64) -> Result<Value<'de>, E> {
        Ok(Value::Number(number.into()))
    }

    fn visit_f64<E>(self, number: f64) -> Result<Value<'de>, E> {
        Ok(Number::from_f64(number).map_or(Value::Null, Value::Number))
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Value<'de>, E> {
        Ok(Value::String(Cow::Borrowed(text)))
    }

    fn visit_str<E>(self, text: &str) -> Result<Value<'de>, E> {
        Ok(Value::String(Cow::Owned(text.to_owned())))
    }

    fn visit_string<E>(self, text: String) -> Result<Value<'de>, E> {
        Ok(Value::String(Cow::Owned(text)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value<'de>, A::Error> {
        // serde_json gives no hint: room for a hook body's keys at once, not grown 0, 4, 8.
        let mut entries = Vec::with_capacity(access.size_hint().unwrap_or(8).min(64));
        while let Some(Key(key)) = access.next_key()? {
            entries.push((key, access.next_value()?));
        }
        Ok(Value::Object(Map { entries }))
    }
}

/// An object's key, borrowed where it has no escapes (serde's own `Cow` always copies).
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(text)))
    }

    fn visit_str<E>(self, text: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(text.to_owned())))
    }

    fn visit_string<E>(self, text: String) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(text)))
    }
}

#[cfg(test)]
mod tests;
