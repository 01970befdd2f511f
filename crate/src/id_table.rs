//! [`IdTable`]: the few things in flight (requests, runs, sends), by id, in the order they started.
//!
//! A table like this holds a handful of entries at a time, so a linear scan finds one as fast as a
//! tree does. It also keeps the wasm small: every `BTreeMap<String, V>` brings its own copy of
//! the tree's insert, remove and rebalance code (about 10 KB each, issue 23), where this brings a
//! scan and a `Vec`.

/// Entries by id, in insertion order; an id is there at most once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdTable<V> {
    entries: Vec<(String, V)>,
}

impl<V> Default for IdTable<V> {
    fn default() -> Self {
        Self { entries: Vec::new() }
    }
}

impl<V> IdTable<V> {
    pub fn new() -> Self {
        Self::default()
    }

    fn position(&self, id: &str) -> Option<usize> {
        self.entries.iter().position(|(key, _)| key == id)
    }

    /// Add `value` under `id`; an entry already there is replaced in place and returned.
    pub fn insert(&mut self, id: String, value: V) -> Option<V> {
        match self.position(&id) {
            Some(at) => Some(std::mem::replace(&mut self.entries[at].1, value)),
            None => {
                self.entries.push((id, value));
                None
            }
        }
    }

    /// Take the entry for `id` out, keeping the others' order.
    pub fn remove(&mut self, id: &str) -> Option<V> {
        let at = self.position(id)?;
        Some(self.entries.remove(at).1)
    }

    /// Take the oldest entry out.
    pub fn pop_oldest(&mut self) -> Option<(String, V)> {
        (!self.entries.is_empty()).then(|| self.entries.remove(0))
    }

    pub fn get_mut(&mut self, id: &str) -> Option<&mut V> {
        self.position(id).map(|at| &mut self.entries[at].1)
    }

    pub fn contains_key(&self, id: &str) -> bool {
        self.position(id).is_some()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Ids and values, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &V)> {
        self.entries.iter().map(|(id, value)| (id, value))
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.entries.iter().map(|(id, _)| id)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.entries.iter().map(|(_, value)| value)
    }

    /// Remove and return the entries `take` picks, oldest first; the rest keep their order.
    pub fn take_where(&mut self, mut take: impl FnMut(&V) -> bool) -> Vec<(String, V)> {
        let (taken, kept) = std::mem::take(&mut self.entries)
            .into_iter()
            .partition(|(_, value)| take(value));
        self.entries = kept;
        taken
    }

    /// Remove and return every entry, oldest first.
    pub fn drain(&mut self) -> Vec<(String, V)> {
        std::mem::take(&mut self.entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_insertion_order_and_replaces_in_place() {
        let mut table = IdTable::new();
        for id in ["b-2", "a-10", "a-1"] {
            assert_eq!(table.insert(id.to_string(), id.len()), None);
        }
        assert_eq!(table.insert("a-10".to_string(), 0), Some(4));
        assert_eq!(table.keys().collect::<Vec<_>>(), ["b-2", "a-10", "a-1"]);
        assert_eq!(table.get_mut("a-10"), Some(&mut 0));
        assert_eq!(table.len(), 3);
    }

    #[test]
    fn removes_an_entry_or_the_oldest_and_leaves_the_others_in_order() {
        let mut table: IdTable<u8> =
            [("x", 1), ("y", 2), ("z", 3)]
                .into_iter()
                .fold(IdTable::new(), |mut table, (id, n)| {
                    table.insert(id.to_string(), n);
                    table
                });
        assert_eq!(table.remove("y"), Some(2));
        assert_eq!(table.remove("y"), None);
        assert!(!table.contains_key("y"));
        *table.get_mut("z").unwrap() = 9;
        assert_eq!(table.values().collect::<Vec<_>>(), [&1, &9]);
        assert_eq!(table.pop_oldest(), Some(("x".to_string(), 1)));
        assert_eq!(table.keys().collect::<Vec<_>>(), ["z"]);
    }

    #[test]
    fn takes_the_entries_a_predicate_picks_and_drains_the_rest() {
        let mut table = IdTable::new();
        for (id, deadline) in [("r-1", 5), ("r-2", 50), ("r-3", 7)] {
            table.insert(id.to_string(), deadline);
        }
        let late = table.take_where(|deadline| *deadline <= 10);
        assert_eq!(late, [("r-1".to_string(), 5), ("r-3".to_string(), 7)]);
        assert_eq!(table.drain(), [("r-2".to_string(), 50)]);
        assert!(table.is_empty());
    }
}
