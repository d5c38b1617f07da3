import WebImageCodecs

/// Where an image was found, or which caches a request targets (SDWebImage's `SDImageCacheType`,
/// same raw values).
///
/// In results, ``none`` means "not found" (or, from the manager, "came from the network"). In
/// requests, ``none`` means "do nothing", and ``all`` targets both memory and disk.
public enum ImageCacheType: Int, Sendable, Hashable, CaseIterable {
    /// Not cached / no cache.
    case none = 0
    /// The disk cache.
    case disk = 1
    /// The memory cache.
    case memory = 2
    /// Memory and disk.
    case all = 3

    /// True for ``memory`` and ``all``.
    public var includesMemory: Bool { self == .memory || self == .all }
    /// True for ``disk`` and ``all``.
    public var includesDisk: Bool { self == .disk || self == .all }

    /// This type without its disk part (``disk`` → ``none``, ``all`` → ``memory``), as the manager
    /// uses when an image that came from disk must not be written back there.
    public var removingDisk: ImageCacheType { includesMemory ? .memory : .none }
}
