//! How ACP messages are read: leniently, as the schema's `x-deserialize-default-on-error` and
//! `x-deserialize-skip-invalid-items` annotations ask. A field of the wrong type takes its default,
//! a list drops the items it cannot read, a capability counts as supported whenever it is present,
//! and an enum value or union tag this version does not know is kept as sent. Writing stays exact:
//! everything here is for reading; `Serialize` is derived.
//!
//! Everything reads through [`serde_json::Value`] (messages arrive as JSON and are parsed once) with
//! [`crate::json::from_value`]. A struct's `Deserialize` is a `read_struct`: one `Fields` call per
//! field. serde's derive compiled a visitor of its own for each of some seventy types, about
//! 80 KB of the wasm.

use crate::json::{read_struct, Fields};
use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Error;
use serde_json::{Map, Value};

/// The `_meta` object every ACP type may carry: extensions agents and clients agree on by name.
pub type Meta = Map<String, Value>;

// ACP's lenient readings of a field, beside `crate::json`'s exact ones.
impl Fields {
    /// A field read as its type, or its default when missing or of another shape (`null` included).
    pub fn or_default<T: DeserializeOwned + Default>(&mut self, key: &str) -> T {
        self.take(key)
            .and_then(|value| crate::json::from_value(value).ok())
            .unwrap_or_default()
    }

    /// A list whose unreadable items are dropped; anything but an array reads as empty.
    pub fn list<T: DeserializeOwned>(&mut self, key: &str) -> Vec<T> {
        self.take(key).and_then(items).unwrap_or_default()
    }

    /// An optional list: `null` (or not an array) is `None`, an array drops the items it cannot read.
    pub fn opt_list<T: DeserializeOwned>(&mut self, key: &str) -> Option<Vec<T>> {
        self.take(key).and_then(items)
    }

    /// A capability, supported when present. The schema writes it as an empty object (`{}`,
    /// perhaps with `_meta`); `true` is read as present too, `null`, `false` and absence as not.
    pub fn presence(&mut self, key: &str) -> Option<Supported> {
        match self.take(key) {
            None | Some(Value::Null | Value::Bool(false)) => None,
            Some(value) => Some(crate::json::from_value(value).unwrap_or_default()),
        }
    }

    /// A flag that may also be spelled as a present object (`{}` means supported, as for
    /// capabilities); anything else is false.
    pub fn flag(&mut self, key: &str) -> bool {
        matches!(self.take(key), Some(Value::Bool(true) | Value::Object(_)))
    }
}

/// One way to read a member of an untagged union.
pub type Reader<T> = fn(Value) -> Result<T, Error>;

/// The first of `readers` that reads `value` (serde's `untagged`), or an error naming `name`.
pub fn first_of<T>(value: Value, name: &str, readers: &[Reader<T>]) -> Result<T, Error> {
    readers
        .iter()
        .find_map(|read| read(value.clone()).ok())
        .ok_or_else(|| Error::custom(format_args!("data did not match any variant of untagged enum {name}")))
}

fn items<T: DeserializeOwned>(value: Value) -> Option<Vec<T>> {
    match value {
        Value::Array(values) => Some(
            values
                .into_iter()
                .filter_map(|v| crate::json::from_value(v).ok())
                .collect(),
        ),
        _ => None,
    }
}

/// A capability that is supported when present (see [`Fields::presence`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Supported {
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

read_struct!(Supported { meta: or_default "_meta" });

/// Read one member of a tagged union: its variant's own type is read from the whole object (which
/// ignores the tag field); a malformed known member is an error that names it.
pub fn variant<T: DeserializeOwned, E: serde::de::Error>(value: Value, name: &str) -> Result<T, E> {
    crate::json::from_value(value).map_err(|e| E::custom(format_args!("{name}: {e}")))
}

/// `Deserialize` for a union tagged by a string field, whose unknown tags become
/// `Unknown(Value)` (the whole object, written back unchanged). Serialization is derived.
macro_rules! tagged_union {
    ($name:ident, $key:literal, { $( $wire:literal => $variant:ident, )+ }) => {
        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let value = <::serde_json::Value as ::serde::Deserialize>::deserialize(d)?;
                let Some(tag) = value.get($key).and_then(::serde_json::Value::as_str) else {
                    return Err(<D::Error as ::serde::de::Error>::missing_field($key));
                };
                Ok(match tag {
                    $( $wire => $name::$variant($crate::acp::protocol::lenient::variant(value, $wire)?), )+
                    _ => $name::Unknown(value),
                })
            }
        }
    };
}
pub(crate) use tagged_union;

/// Serialize a string-valued enum by its wire name.
pub fn serialize_str<S: Serializer>(s: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(s)
}

/// Read a string-valued enum: any string; a non-string is an error (the enclosing field decides
/// whether that falls back to a default).
pub fn deserialize_string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    match Value::deserialize(d)? {
        Value::String(s) => Ok(s),
        other => Err(D::Error::custom(format_args!("expected a string, found {other}"))),
    }
}

/// A string enum whose unknown values are kept as `Unknown(String)` and written back as they came.
macro_rules! open_enum {
    (
        $(#[$attr:meta])*
        pub enum $name:ident {
            $( $(#[$vattr:meta])* $variant:ident = $wire:literal, )+
        }
    ) => {
        $(#[$attr])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vattr])* $variant, )+
            /// A value this version of the protocol does not know, as the peer sent it.
            Unknown(String),
        }

        impl $name {
            /// The wire name.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => $wire, )+
                    Self::Unknown(other) => other,
                }
            }
        }

        impl From<&str> for $name {
            fn from(wire: &str) -> Self {
                match wire {
                    $( $wire => Self::$variant, )+
                    other => Self::Unknown(other.to_string()),
                }
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                $crate::acp::protocol::lenient::serialize_str(self.as_str(), serializer)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::acp::protocol::lenient::deserialize_string(d).map(|s| Self::from(s.as_str()))
            }
        }
    };
}
pub(crate) use open_enum;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Default, PartialEq)]
    struct Sample {
        number: Option<u32>,
        names: Vec<String>,
        maybe: Option<Vec<u8>>,
        capability: Option<Supported>,
        enabled: bool,
    }

    read_struct!(Sample {
        number: or_default "number",
        names: list "names",
        maybe: opt_list "maybe",
        capability: presence "capability",
        enabled: flag "enabled",
    });

    fn sample(value: Value) -> Sample {
        crate::json::from_value(value).unwrap()
    }

    #[test]
    fn a_field_of_the_wrong_type_reads_as_its_default() {
        assert_eq!(sample(json!({"number": "seven"})).number, None);
        assert_eq!(sample(json!({"number": 7})).number, Some(7));
        assert_eq!(sample(json!({})), Sample::default());
    }

    #[test]
    fn lists_drop_the_items_they_cannot_read() {
        assert_eq!(sample(json!({"names": ["a", 1, "b", null]})).names, ["a", "b"]);
        assert_eq!(sample(json!({"names": "a"})).names, Vec::<String>::new());
        assert_eq!(sample(json!({"maybe": null})).maybe, None);
        assert_eq!(sample(json!({"maybe": [1, "x", 300, 2]})).maybe, Some(vec![1, 2]));
    }

    #[test]
    fn a_capability_is_supported_when_present() {
        assert!(sample(json!({"capability": {}})).capability.is_some());
        assert!(sample(json!({"capability": true})).capability.is_some());
        assert!(sample(json!({"capability": {"_meta": {"x": 1}}}))
            .capability
            .unwrap()
            .meta
            .is_some());
        assert!(sample(json!({"capability": null})).capability.is_none());
        assert!(sample(json!({"capability": false})).capability.is_none());
        assert!(sample(json!({})).capability.is_none());
    }

    #[test]
    fn a_flag_may_be_a_boolean_or_a_present_object() {
        assert!(sample(json!({"enabled": true})).enabled);
        assert!(sample(json!({"enabled": {}})).enabled);
        assert!(!sample(json!({"enabled": "yes"})).enabled);
        assert!(!sample(json!({})).enabled);
    }

    #[test]
    fn a_struct_reads_only_from_an_object_and_names_a_missing_required_field() {
        #[derive(Debug)]
        struct Named {
            name: String,
        }
        read_struct!(Named { name: required "name" });
        let err = crate::json::from_value::<Named>(json!(["x"])).unwrap_err();
        assert_eq!(err.to_string(), "invalid type: sequence, expected struct Named");
        let err = crate::json::from_value::<Named>(json!({"other": 1})).unwrap_err();
        assert_eq!(err.to_string(), "missing field `name`");
        assert_eq!(
            crate::json::from_value::<Named>(json!({"name": "n", "x": 1}))
                .unwrap()
                .name,
            "n"
        );
    }

    #[test]
    fn an_untagged_union_takes_the_first_reader_that_fits() {
        let readers: [Reader<String>; 2] = [
            |v| crate::json::from_value::<u8>(v).map(|n| format!("number {n}")),
            |v| crate::json::from_value::<String>(v).map(|s| format!("text {s}")),
        ];
        assert_eq!(first_of(json!(7), "Either", &readers).unwrap(), "number 7");
        assert_eq!(first_of(json!("a"), "Either", &readers).unwrap(), "text a");
        let err = first_of(json!(true), "Either", &readers).unwrap_err();
        assert_eq!(
            err.to_string(),
            "data did not match any variant of untagged enum Either"
        );
    }

    open_enum! {
        pub enum Colour {
            Red = "red",
            DarkBlue = "dark_blue",
        }
    }

    #[test]
    fn an_open_enum_keeps_unknown_values_and_writes_them_back() {
        let read: Vec<Colour> = crate::json::from_value(json!(["red", "dark_blue", "mauve"])).unwrap();
        assert_eq!(read, [Colour::Red, Colour::DarkBlue, Colour::Unknown("mauve".into())]);
        assert_eq!(
            serde_json::to_value(&read).unwrap(),
            json!(["red", "dark_blue", "mauve"])
        );
        assert!(crate::json::from_value::<Colour>(json!(3)).is_err());
    }
}
