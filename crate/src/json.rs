//! Typed reads of a parsed JSON [`Value`]: every message is parsed once into a `Value`, and each
//! protocol type is read from that with [`from_value`].
//!
//! serde_json's own `Value` deserializer reads a struct from an array as well as from an object, so
//! every derived type carried a second reader, for a shape no peer sends, into the wasm (about a
//! kilobyte each, for some eighty types). This one reads structs and maps from objects only, and
//! leaves scalars to serde_json's deserializer, so numbers, strings and their errors read as
//! before.

use serde::de::value::StringDeserializer;
use serde::de::{self, DeserializeOwned, DeserializeSeed, Error as _, IntoDeserializer, Unexpected, Visitor};
use serde::Deserialize;
use serde_json::{Error, Map, Value};

/// `T` read from `value` (serde_json's `from_value`, but a struct must be an object).
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    T::deserialize(Reader(value))
}

/// `n` as JavaScript's `String(n)` writes it, for a number a tool echoes back as the CLI (in
/// JavaScript) does: a whole number without a fraction, any other in the shortest form that reads
/// back the same, as serde_json (ryu) writes it. Rust's `{}` writes 1e-7 as `0.0000001`.
pub fn js_number(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if n.fract() == 0.0 && n.abs() < 9.0e18 {
        return (n as i64).to_string();
    }
    serde_json::Number::from_f64(n).map_or_else(String::new, |number| number.to_string())
}

/// An object's fields, read one at a time by the [`read_struct`] readers. Unknown fields are
/// ignored and a field read is taken out of the object, so each type's reader is a short list of
/// calls to these (generic over the field's type only), not a visitor of its own.
pub struct Fields(Map<String, Value>);

impl Fields {
    /// The fields of `value`, which must be an object; `expected` names the type for the error.
    pub fn of(value: Value, expected: &'static str) -> Result<Self, Error> {
        match value {
            Value::Object(map) => Ok(Self(map)),
            other => Err(Error::invalid_type(unexpected(&other), &expected)),
        }
    }

    /// The field's value, taken out of the object.
    pub fn take(&mut self, key: &str) -> Option<Value> {
        self.0.remove(key)
    }

    /// A field that must be there: missing is an error, and so is a value of the wrong type.
    pub fn required<T: DeserializeOwned>(&mut self, key: &'static str) -> Result<T, Error> {
        match self.take(key) {
            Some(value) => from_value(value),
            None => Err(Error::missing_field(key)),
        }
    }

    /// A field that takes its default when missing (an `Option` is `None`); a value of the wrong
    /// type is an error.
    pub fn default<T: DeserializeOwned + Default>(&mut self, key: &str) -> Result<T, Error> {
        self.take(key).map_or_else(|| Ok(T::default()), from_value)
    }

    /// Drops the fields no reader took (unknown ones, ignored as serde's derive ignores them).
    #[inline(never)]
    fn finish(self) {}

    /// A type whose fields sit in this object beside ours (serde's `flatten`): read from the
    /// fields not yet taken, so it reads last.
    pub fn flatten<T: DeserializeOwned>(&mut self) -> Result<T, Error> {
        from_value(Value::Object(self.0.clone()))
    }
}

/// `T` read from the object `d` holds by `read`, a reader written out with [`Fields`] (the
/// [`read_struct`]s, tagged enums); `expected` names the type when `d` is not an object.
///
/// Only the call to `read` is compiled for each type: reading the value, checking it is an object,
/// dropping what `read` left and converting the error are each compiled once (`inline(never)`).
pub fn read_object<'de, D: de::Deserializer<'de>, T>(
    d: D,
    expected: &'static str,
    read: impl FnOnce(&mut Fields) -> Result<T, Error>,
) -> Result<T, D::Error> {
    let mut fields = object_of(d, expected)?;
    let read = read(&mut fields);
    fields.finish();
    read.map_err(error_of::<D>)
}

#[inline(never)]
fn object_of<'de, D: de::Deserializer<'de>>(d: D, expected: &'static str) -> Result<Fields, D::Error> {
    let value: Value = serde::Deserialize::deserialize(d)?;
    Fields::of(value, expected).map_err(error_of::<D>)
}

#[inline(never)]
fn error_of<'de, D: de::Deserializer<'de>>(error: Error) -> D::Error {
    D::Error::custom(error)
}

/// `Deserialize` for a struct read with [`Fields`], one call per field in the struct's order:
/// `field: how "wireName"`, where `how` is a [`Fields`] method (`flatten` takes no name). serde's
/// derive compiles a visitor of its own for each type, two to four times the size in the wasm.
macro_rules! read_struct {
    ($name:ident { $( $field:ident: $how:ident $($wire:literal)? ),+ $(,)? }) => {
        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::json::read_object(d, concat!("struct ", stringify!($name)), |fields| {
                    Ok(Self { $( $field: $crate::json::read_field!(fields, $how $($wire)?), )+ })
                })
            }
        }
    };
}
pub(crate) use read_struct;

/// One field of a [`read_struct`]. Only `required`, `default` and `flatten` can fail; the other
/// readings (ACP's lenient ones) return the value itself, so no error path is compiled for them.
macro_rules! read_field {
    ($fields:ident, required $wire:literal) => {
        $fields.required($wire)?
    };
    ($fields:ident, default $wire:literal) => {
        $fields.default($wire)?
    };
    ($fields:ident, flatten) => {
        $fields.flatten()?
    };
    ($fields:ident, $how:ident $wire:literal) => {
        $fields.$how($wire)
    };
}
pub(crate) use read_field;

/// `Deserialize` for an enum of unit variants written as strings: `Variant = "wireName"`. The
/// index is found by [`unit_variant`], compiled once; serde's derive compiles an enum reader
/// (an identifier visitor and a variant visitor) for each type.
macro_rules! read_unit_enum {
    ($name:ident { $( $variant:ident = $wire:literal ),+ $(,)? }) => {
        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let variants = [$( $name::$variant ),+];
                $crate::json::unit_variant(d, &[$( $wire ),+]).map(|index| variants[index])
            }
        }
    };
}
pub(crate) use read_unit_enum;

/// The index in `names` of the string `d` holds; another string is serde's unknown variant error.
pub fn unit_variant<'de, D: de::Deserializer<'de>>(d: D, names: &'static [&'static str]) -> Result<usize, D::Error> {
    let name = String::deserialize(d)?;
    names
        .iter()
        .position(|known| *known == name)
        .ok_or_else(|| D::Error::unknown_variant(&name, names))
}

struct Reader(Value);

fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (_, Some(i), _) => Unexpected::Signed(i),
            (_, _, Some(f)) => Unexpected::Float(f),
            _ => Unexpected::Other("number"),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

fn visit_object<'de, V: Visitor<'de>>(map: Map<String, Value>, visitor: V) -> Result<V::Value, Error> {
    let len = map.len();
    let mut entries = Entries {
        iter: map.into_iter(),
        value: None,
    };
    let read = visitor.visit_map(&mut entries)?;
    match entries.iter.len() {
        0 => Ok(read),
        _ => Err(Error::invalid_length(len, &"fewer elements in map")),
    }
}

fn visit_array<'de, V: Visitor<'de>>(items: Vec<Value>, visitor: V) -> Result<V::Value, Error> {
    let len = items.len();
    let mut items = Items(items.into_iter());
    let read = visitor.visit_seq(&mut items)?;
    match items.0.len() {
        0 => Ok(read),
        _ => Err(Error::invalid_length(len, &"fewer elements in array")),
    }
}

/// Scalars go to serde_json's own deserializer.
macro_rules! scalars {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            de::Deserializer::$method(self.0, visitor)
        })*
    };
}

impl<'de> de::Deserializer<'de> for Reader {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(map) => visit_object(map, visitor),
            Value::Array(items) => visit_array(items, visitor),
            scalar => scalar.deserialize_any(visitor),
        }
    }

    scalars! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_char deserialize_str deserialize_string
        deserialize_bytes deserialize_byte_buf deserialize_unit deserialize_identifier
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            value => visitor.visit_some(Reader(value)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        self.0.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => visit_array(items, visitor),
            other => Err(Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(map) => visit_object(map, visitor),
            other => Err(Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let (variant, value) = match self.0 {
            Value::String(variant) => (variant, None),
            Value::Object(map) if map.len() == 1 => {
                let Some((variant, value)) = map.into_iter().next() else {
                    unreachable!("one entry")
                };
                (variant, Some(value))
            }
            Value::Object(_) => {
                return Err(Error::invalid_value(Unexpected::Map, &"map with a single key"));
            }
            other => return Err(Error::invalid_type(unexpected(&other), &"string or map")),
        };
        visitor.visit_enum(Variant { variant, value })
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

/// An object's entries, keys as strings.
struct Entries {
    iter: serde_json::map::IntoIter,
    value: Option<Value>,
}

impl<'de> de::MapAccess<'de> for Entries {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.iter.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        let key: StringDeserializer<Error> = key.into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(Reader(value)),
            None => Err(Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// An array's items.
struct Items(std::vec::IntoIter<Value>);

impl<'de> de::SeqAccess<'de> for Items {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        self.0.next().map(|item| seed.deserialize(Reader(item))).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// An enum: its variant's name, and the value of a variant that carries one.
struct Variant {
    variant: String,
    value: Option<Value>,
}

impl<'de> de::EnumAccess<'de> for Variant {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(mut self, seed: V) -> Result<(V::Value, Self), Error> {
        let name: StringDeserializer<Error> = std::mem::take(&mut self.variant).into_deserializer();
        Ok((seed.deserialize(name)?, self))
    }
}

impl<'de> de::VariantAccess<'de> for Variant {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.value {
            Some(value) => serde::Deserialize::deserialize(value),
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        match self.value {
            Some(value) => seed.deserialize(Reader(value)),
            None => Err(Error::invalid_type(Unexpected::UnitVariant, &"newtype variant")),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Some(Value::Array(items)) => visit_array(items, visitor),
            Some(other) => Err(Error::invalid_type(unexpected(&other), &"tuple variant")),
            None => Err(Error::invalid_type(Unexpected::UnitVariant, &"tuple variant")),
        }
    }

    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Some(Value::Object(map)) => visit_object(map, visitor),
            Some(other) => Err(Error::invalid_type(unexpected(&other), &"struct variant")),
            None => Err(Error::invalid_type(Unexpected::UnitVariant, &"struct variant")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Call {
        tool_name: String,
        limit: Option<u32>,
        tags: Vec<String>,
        mode: Mode,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        Plain,
        Paged { page: u64 },
    }

    #[test]
    fn a_unit_enum_reads_its_wire_names_and_names_the_known_ones_otherwise() {
        #[derive(Clone, Copy, Debug, PartialEq)]
        enum Side {
            Left,
            FarRight,
        }
        read_unit_enum!(Side {
            Left = "left",
            FarRight = "farRight",
        });
        assert_eq!(
            from_value::<Vec<Side>>(json!(["farRight", "left"])).unwrap(),
            [Side::FarRight, Side::Left]
        );
        let err = from_value::<Side>(json!("middle")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown variant `middle`, expected `left` or `farRight`"
        );
        assert!(from_value::<Side>(json!(1)).is_err());
    }

    #[test]
    fn numbers_are_written_as_javascript_writes_them() {
        assert_eq!(js_number(700000.0), "700000");
        assert_eq!(js_number(-3.0), "-3");
        assert_eq!(js_number(2.5), "2.5");
        assert_eq!(js_number(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(js_number(1e-7), "1e-7");
        assert_eq!(js_number(f64::NAN), "NaN");
        assert_eq!(js_number(f64::NEG_INFINITY), "-Infinity");
    }

    #[test]
    fn reads_a_struct_from_an_object_as_serde_json_does() {
        let value = json!({"toolName": "Grep", "limit": null, "tags": ["a"], "mode": {"paged": {"page": 2}}});
        let call: Call = from_value(value.clone()).unwrap();
        assert_eq!(call, serde_json::from_value(value).unwrap());
        assert_eq!(call.mode, Mode::Paged { page: 2 });
        let plain: Call = from_value(json!({"toolName": "Ls", "limit": 3, "tags": [], "mode": "plain"})).unwrap();
        assert_eq!((plain.limit, plain.mode), (Some(3), Mode::Plain));
    }

    #[test]
    fn errors_read_as_serde_json_errors_do() {
        let wrong = json!({"toolName": 1, "tags": [], "mode": "plain"});
        assert_eq!(
            from_value::<Call>(wrong.clone()).unwrap_err().to_string(),
            serde_json::from_value::<Call>(wrong).unwrap_err().to_string()
        );
        let missing = json!({"toolName": "Ls", "tags": []});
        assert_eq!(
            from_value::<Call>(missing).unwrap_err().to_string(),
            "missing field `mode`"
        );
    }

    #[test]
    fn a_struct_is_not_read_from_an_array() {
        let err = from_value::<Call>(json!(["Grep", null, [], "plain"])).unwrap_err();
        assert_eq!(err.to_string(), "invalid type: sequence, expected struct Call");
    }
}
