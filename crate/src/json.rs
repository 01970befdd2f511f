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
use serde_json::{Error, Map, Value};

/// `T` read from `value` (serde_json's `from_value`, but a struct must be an object).
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    T::deserialize(Reader(value))
}

struct Reader(Value);

pub(crate) fn unexpected(value: &Value) -> Unexpected<'_> {
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
