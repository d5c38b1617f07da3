/// Decoded frames an ``AnimatedFrames`` holds, bounded in bytes, least recently used out first.
///
/// Frame 0 (the poster) is not kept here: the image holds it for its whole life.
struct FrameBuffer {
    /// Most bytes the buffer may hold; `Int.max` holds every frame.
    var limit: Int
    private(set) var bytes = 0
    private var frames: [Int: Bitmap] = [:]
    private var order: [Int] = []  // least recently used first

    init(limit: Int) { self.limit = limit }

    var count: Int { frames.count }

    func contains(_ index: Int) -> Bool { frames[index] != nil }

    /// The frame at `index` if held, marking it most recently used.
    mutating func frame(at index: Int) -> Bitmap? {
        guard let frame = frames[index] else { return nil }
        touch(index)
        return frame
    }

    /// Holds `frame` if it fits the limit, evicting the least recently used frames to make room.
    mutating func insert(_ frame: Bitmap, at index: Int) {
        guard frame.byteCount <= limit, frames[index] == nil else { return }
        frames[index] = frame
        order.append(index)
        bytes += frame.byteCount
        trim()
    }

    /// Drops frames until the held bytes fit the limit.
    mutating func trim() {
        while bytes > limit, !order.isEmpty {
            let oldest = order.removeFirst()
            if let frame = frames.removeValue(forKey: oldest) { bytes -= frame.byteCount }
        }
    }

    mutating func removeAll() {
        frames.removeAll()
        order.removeAll()
        bytes = 0
    }

    private mutating func touch(_ index: Int) {
        if let position = order.lastIndex(of: index) { order.remove(at: position) }
        order.append(index)
    }
}
