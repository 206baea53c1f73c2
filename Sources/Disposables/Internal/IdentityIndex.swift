/// Each child's place in a ``CompoundDisposable``'s list, by the child's identity: a hash table
/// from an object's address to an `Int`, with open addressing (linear probing, and backward-shift
/// deletion, so no tombstones). Not thread-safe: kept under the compound disposable's lock.
///
/// Why not `[ObjectIdentifier: Int]`: hashing an `ObjectIdentifier` goes through `Hasher`
/// (SipHash-1-3), most of an `add` or a `remove` of a 100,000-child compound disposable (by
/// callgrind). An object's address needs no protection against chosen collisions: here it is
/// multiplied by 2^64 / φ and the top bits pick the bucket (Fibonacci hashing), which spreads
/// addresses that differ only in their low, aligned bits.
struct IdentityIndex {
    private struct Bucket {
        /// The object's address; 0 marks an empty bucket (no object lives at address 0).
        var key: UInt
        var value: Int
    }

    /// A power of two in count, or empty before the first insertion.
    private var buckets: [Bucket] = []
    /// 64 minus log2 of the bucket count: the shift that takes a hash's top bits.
    private var shift = 64
    /// How many keys are present.
    private(set) var count = 0

    /// The bucket a key's probe starts at, in a table of `mask + 1` buckets (`shift` is 64
    /// minus its log2; 64, with no buckets, only while nobody probes).
    @inline(__always)
    private static func home(_ key: UInt, shift: Int, mask: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) &>> UInt(shift)) & mask
    }

    @inline(__always)
    private static func key(_ object: ObjectIdentifier) -> UInt {
        UInt(bitPattern: object)
    }

    /// Adds `value` for `object` unless `object` is present, in which case nothing changes.
    /// - Returns: whether it was added.
    mutating func insertIfAbsent(_ object: ObjectIdentifier, _ value: Int) -> Bool {
        insertIfAbsent(key: Self.key(object), value)
    }

    private mutating func insertIfAbsent(key: UInt, _ value: Int) -> Bool {
        // Grow at three quarters full: linear probing's probes stay short below that.
        if (count &+ 1) &* 4 > buckets.count &* 3 { grow() }
        let shift = shift
        let added = buckets.withUnsafeMutableBufferPointer { buckets -> Bool in
            let mask = buckets.count &- 1
            var index = Self.home(key, shift: shift, mask: mask)
            while true {
                let found = buckets[index].key
                if found == key { return false }
                if found == 0 {
                    buckets[index] = Bucket(key: key, value: value)
                    return true
                }
                index = (index &+ 1) & mask
            }
        }
        if added { count &+= 1 }
        return added
    }

    /// Sets `object`'s value, adding it if absent.
    mutating func set(_ object: ObjectIdentifier, _ value: Int) {
        if !insertIfAbsent(object, value) {
            let key = Self.key(object)
            let shift = shift
            buckets.withUnsafeMutableBufferPointer { buckets in
                let mask = buckets.count &- 1
                var index = Self.home(key, shift: shift, mask: mask)
                while buckets[index].key != key { index = (index &+ 1) & mask }
                buckets[index].value = value
            }
        }
    }

    /// Removes `object` and returns its value, or nil if it was absent.
    mutating func removeValue(for object: ObjectIdentifier) -> Int? {
        guard count > 0 else { return nil }
        let key = Self.key(object)
        let shift = shift
        let removed = buckets.withUnsafeMutableBufferPointer { buckets -> Int? in
            let mask = buckets.count &- 1
            var hole = Self.home(key, shift: shift, mask: mask)
            while true {
                let found = buckets[hole].key
                if found == key { break }
                if found == 0 { return nil }
                hole = (hole &+ 1) & mask
            }
            let value = buckets[hole].value
            // Backward shift: move later keys of the cluster into the hole when the hole lies
            // on their probe path (between their home and where they sit, cyclically).
            var next = hole
            while true {
                next = (next &+ 1) & mask
                let moving = buckets[next].key
                if moving == 0 { break }
                let start = Self.home(moving, shift: shift, mask: mask)
                // Distances along the probe path, modulo the table size.
                if (next &- start) & mask >= (next &- hole) & mask {
                    buckets[hole] = buckets[next]
                    hole = next
                }
            }
            buckets[hole].key = 0
            return value
        }
        if removed != nil { count &-= 1 }
        return removed
    }

    /// Empties the table and frees its buckets.
    mutating func removeAll() {
        buckets = []
        shift = 64
        count = 0
    }

    /// Doubles the buckets (16 at first) and puts every key back.
    private mutating func grow() {
        let old = buckets
        let capacity = max(16, 2 * old.count)
        buckets = Array(repeating: Bucket(key: 0, value: 0), count: capacity)
        shift = 64 - capacity.trailingZeroBitCount
        count = 0
        for bucket in old where bucket.key != 0 {
            _ = insertIfAbsent(key: bucket.key, bucket.value)
        }
    }
}
