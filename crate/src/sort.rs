//! A stable sort compiled once for every caller. The standard library's sort is generic over the
//! element and the comparison, so each `sort_by` compiles its own copy of the whole algorithm into
//! the wasm (3 to 8 KB each). Here only the index order is sorted, through a `dyn` comparison,
//! and the items are then moved into it: one copy of the sort, a small move per element type.

use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Sorts `items` by `compare`, equal items keeping their order, as `slice::sort_by` does.
pub fn sort_by<T>(items: &mut Vec<T>, compare: impl Fn(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    sort_indices(&mut order, &|a, b| compare(&items[a], &items[b]));
    let mut slots: Vec<Option<T>> = items.drain(..).map(Some).collect();
    items.extend(order.into_iter().filter_map(|index| slots[index].take()));
}

/// Sorts `items` by the key `key` gives each, as `slice::sort_by_key` does.
pub fn sort_by_key<T, K: Ord>(items: &mut Vec<T>, key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// A map of `pairs`, the last value kept for a repeated key, as `collect` gives. `collect` sorts
/// the pairs first, with a sort compiled for each iterator type; this inserts them one by one.
pub fn map_of<K: Ord, V>(pairs: impl IntoIterator<Item = (K, V)>) -> BTreeMap<K, V> {
    let mut map = BTreeMap::new();
    map.extend(pairs);
    map
}

fn sort_indices(order: &mut [usize], compare: &dyn Fn(usize, usize) -> Ordering) {
    order.sort_by(|&a, &b| compare(a, b));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_by_the_comparison_and_keeps_equal_items_in_their_order() {
        let mut items = vec![(3, "c"), (1, "a"), (2, "b"), (1, "z"), (0, "y"), (3, "d")];
        sort_by(&mut items, |a, b| a.0.cmp(&b.0));
        assert_eq!(items, [(0, "y"), (1, "a"), (1, "z"), (2, "b"), (3, "c"), (3, "d")]);
    }

    #[test]
    fn sorts_by_a_key_and_moves_items_without_cloning_them() {
        let mut items: Vec<String> = ["pear", "fig", "apple", "kiwi"].map(String::from).to_vec();
        sort_by_key(&mut items, String::len);
        assert_eq!(items, ["fig", "pear", "kiwi", "apple"]);
        let mut empty: Vec<String> = Vec::new();
        sort_by(&mut empty, |a, b| a.cmp(b));
        assert!(empty.is_empty());
    }

    #[test]
    fn a_map_keeps_the_last_value_of_a_repeated_key() {
        let map = map_of([("b", 1), ("a", 2), ("b", 3)]);
        assert_eq!(map.into_iter().collect::<Vec<_>>(), [("a", 2), ("b", 3)]);
    }
}
