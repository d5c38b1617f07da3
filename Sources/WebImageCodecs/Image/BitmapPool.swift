import Synchronization

/// Pixel memory of bitmaps nobody holds any more, kept for the next bitmap of the same size
/// (the idea of Glide's `LruBitmapPool` and Fresco's pools).
///
/// On this kind of machine a never-touched page costs microseconds to fault in, and a 1024×768
/// bitmap has 768 of them: a long-running process that keeps evicting images from its memory
/// cache and decoding new ones of the same size pays that again and again. With a pool, when
/// the last ``Bitmap`` sharing some pixel memory goes away (evicted from a cache, dropped by an
/// animation's frame buffer, an intermediate of a transform), the memory goes to the pool, and
/// decoders, the resampler and transformers fill their next output of that byte count into it.
///
/// - Only buffers of at least ``minimumByteCount`` are pooled; smaller ones are cheap to allocate.
/// - The pool holds at most ``byteLimit`` bytes, dropping the longest-held buffers first; 0 turns
///   it off (nothing is kept, nothing is taken).
/// - A buffer is reused only for the same byte count (width × height × 4), so the common case of
///   a cache of same-sized images recycles exactly.
/// - Memory a caller can still see is never reused: pixel memory reaches the pool only when no
///   bitmap refers to it.
///
/// Bitmaps come from ``current``: ``shared`` unless a task runs with another pool bound.
public final class BitmapPool: Sendable {
    /// The process-wide pool: a quarter of `MemoryCache`'s default cost limit (a sixteenth of
    /// the memory this process may use, at most 256 MiB).
    public static let shared = BitmapPool(byteLimit: defaultByteLimit)

    /// The pool new bitmaps take memory from and give it back to; bind another one for a task
    /// with `BitmapPool.$current.withValue(pool) { … }` (tests, or a subsystem of its own).
    @TaskLocal public static var current: BitmapPool = .shared

    /// The default ``byteLimit`` of ``shared``: a sixteenth of ``ProcessMemoryLimit``'s
    /// available bytes, at most 256 MiB.
    public static let defaultByteLimit: Int = {
        let sixteenth = ProcessMemoryLimit().availableBytes / 16
        return Int(min(sixteenth, 256 << 20))
    }()

    /// Buffers smaller than this (128 KiB) are neither pooled nor taken from the pool: the heap
    /// allocator already reuses mapped memory for them.
    public static let minimumByteCount = BitmapMemory.threshold

    private let state: Mutex<BitmapPoolState>

    /// A pool holding at most `byteLimit` bytes (0 = off).
    public init(byteLimit: Int) {
        state = Mutex(BitmapPoolState(byteLimit: max(0, byteLimit)))
    }

    /// Most bytes held; 0 turns the pool off. Lowering it drops buffers at once.
    public var byteLimit: Int {
        get { state.withLock { $0.byteLimit } }
        set { state.withLock { $0.byteLimit = max(0, newValue); $0.trim() } }
    }

    /// Hits, misses and what is held, read together.
    public var statistics: BitmapPoolStatistics {
        state.withLock { $0.statistics }
    }

    /// Drops every buffer held (under memory pressure); the counters stay.
    public func removeAll() {
        state.withLock { $0.removeAll() }
    }

    /// Drops the longest-held buffers until at most `1 - fraction` of the bytes held now remain
    /// (a memory-pressure signal's share: 0.5 halves the pool, 1 empties it); the limit stays.
    public func shrink(by fraction: Double) {
        state.withLock { $0.trim(toBytes: ShrinkFraction.remaining(of: $0.statistics.heldBytes, dropping: fraction)) }
    }

    /// A buffer of exactly `byteCount` bytes from the pool (a hit), or nil (a miss). Its contents
    /// are whatever the last bitmap left: the caller overwrites every byte.
    func take(byteCount: Int) -> [UInt8]? {
        state.withLock { $0.take(byteCount: byteCount) }
    }

    /// Keeps `bytes` for a later ``take(byteCount:)`` if the pool is on and the limit allows.
    func offer(_ bytes: [UInt8]) {
        state.withLock { $0.offer(bytes) }
    }
}

/// What a ``BitmapPool`` has done and holds.
public struct BitmapPoolStatistics: Sendable, Hashable {
    /// Bitmaps filled into pooled memory.
    public var hits = 0
    /// Bitmaps that found no pooled buffer of their size and took fresh memory.
    public var misses = 0
    /// Buffers given back and kept.
    public var recycled = 0
    /// Buffers given back but not kept (the pool off, or one buffer larger than the limit), and
    /// buffers dropped to stay within the limit.
    public var dropped = 0
    /// Bytes held now.
    public var heldBytes = 0
    /// Buffers held now.
    public var heldCount = 0

    /// hits / (hits + misses); 0 before any request.
    public var hitRatio: Double {
        hits + misses == 0 ? 0 : Double(hits) / Double(hits + misses)
    }
}

/// The pool's buckets (byte count → buffers, oldest first) and counters, under its lock.
struct BitmapPoolState {
    var byteLimit: Int
    private var buckets: [Int: [(age: UInt64, bytes: [UInt8])]] = [:]
    private var clock: UInt64 = 0
    private(set) var statistics = BitmapPoolStatistics()

    init(byteLimit: Int) { self.byteLimit = byteLimit }

    mutating func take(byteCount: Int) -> [UInt8]? {
        guard byteLimit > 0 else { return nil }  // off: neither a hit nor a miss
        guard let entry = buckets[byteCount]?.popLast() else {
            statistics.misses += 1
            return nil
        }
        if buckets[byteCount]?.isEmpty == true { buckets[byteCount] = nil }
        statistics.hits += 1
        statistics.heldBytes -= byteCount
        statistics.heldCount -= 1
        return entry.bytes
    }

    mutating func offer(_ bytes: [UInt8]) {
        guard byteLimit > 0, bytes.count >= BitmapPool.minimumByteCount, bytes.count <= byteLimit else {
            statistics.dropped += 1
            return
        }
        clock &+= 1
        buckets[bytes.count, default: []].append((clock, bytes))
        statistics.recycled += 1
        statistics.heldBytes += bytes.count
        statistics.heldCount += 1
        trim()
    }

    /// Drops the longest-held buffers until the held bytes fit the limit.
    mutating func trim() { trim(toBytes: byteLimit) }

    /// Drops the longest-held buffers until at most `bytes` are held.
    mutating func trim(toBytes bytes: Int) {
        while statistics.heldBytes > bytes,
              let oldest = buckets.min(by: { $0.value[0].age < $1.value[0].age })?.key {
            let dropped = buckets[oldest]!.removeFirst()
            if buckets[oldest]!.isEmpty { buckets[oldest] = nil }
            statistics.heldBytes -= dropped.bytes.count
            statistics.heldCount -= 1
            statistics.dropped += 1
        }
    }

    mutating func removeAll() {
        statistics.dropped += statistics.heldCount
        buckets.removeAll()
        statistics.heldBytes = 0
        statistics.heldCount = 0
    }
}
