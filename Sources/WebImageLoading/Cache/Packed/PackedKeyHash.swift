/// The 64-bit hash the packed layout indexes keys by: FNV-1a over the key's UTF-8 bytes, then
/// SplitMix64's finaliser so nearby keys spread over the table. Stable across processes and runs
/// (the index file stores it). Two keys with one hash share a slot: every read compares the
/// record's whole key, so a collision costs a miss, never another key's bytes.
enum PackedKeyHash {
    static func hash(_ key: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        hash ^= hash >> 30
        hash = hash &* 0xbf58_476d_1ce4_e5b9
        hash ^= hash >> 27
        hash = hash &* 0x94d0_49bb_1331_11eb
        return hash ^ (hash >> 31)
    }
}
