import WebImageCodecs
import Foundation

/// Which file date decides an entry's age for expiry and its rank for size trimming.
public enum DiskCacheExpireType: Sendable, Hashable, CaseIterable {
    /// The last time the entry was written or read through a cache (LRU). Tracked by the cache
    /// itself, so `noatime`/`relatime` mounts do not matter.
    case accessDate
    /// The last time the entry's bytes were written.
    case modificationDate
    /// When the entry's file was created (each write creates a new file): its birth time where the
    /// file system records one (ext4, btrfs, XFS, …), else its modification date.
    case creationDate
    /// The inode change time (ctime): writes, access-date updates and extended-data changes.
    case changeDate
}

/// Where an entry's extended data lives.
public enum DiskCacheExtendedDataStorage: Sendable, Hashable {
    /// `user.` extended attributes where the file system supports them, else sidecar files.
    case automatic
    /// Always `user.webimage.extended` extended attributes; fails where they are unsupported.
    case extendedAttributes
    /// Always a hidden sidecar file next to the entry (`.<entry>.meta`).
    case sidecarFiles
}

/// What a ``DiskCache`` write promises when the machine crashes or loses power, and what a read checks.
public enum DiskCacheDurability: Sendable, Hashable, CaseIterable {
    /// A temporary file renamed into place: readers and other processes never see a half-written
    /// entry, but after a power loss the file system may keep an entry whose bytes were not all on
    /// disk yet. Entry files hold exactly the stored bytes.
    case atomic
    /// ``atomic``, and also: the temporary file is flushed to disk (`fsync`) before the rename and
    /// the directory after it, and each entry file ends with a 16-byte trailer holding the length
    /// and CRC-32 of the bytes before it. A read that finds a file cut short, changed, or without
    /// the trailer (written in ``atomic`` mode, or by a version before this mode) treats it as a
    /// miss and deletes it. Costs two `fsync` calls per write and a CRC-32 pass per read.
    case durable
}

/// How a ``DiskCache`` lays its entries out on disk.
public enum DiskCacheLayout: String, Sendable, Hashable, CaseIterable {
    /// One file per entry, named by the MD5 of its key, as SDWebImage does. The default.
    case files
    /// Entries appended to shared segment files with an index, under `<namespace>/.packed/`:
    /// no file created per write, no directory of millions of files to scan or back up. Entries
    /// larger than ``DiskCacheConfig/packedEntryLimit`` still get a file each. Crash-safe (every
    /// record is checksummed), shared safely by several processes, trimmed by compacting the
    /// oldest segments. See ``DiskCache`` for what differs from ``files``.
    case packed
}

/// Settings for a ``DiskCache``. The defaults suit an app cache; all are plain values.
public struct DiskCacheConfig: Sendable {
    /// The root directory; entries live in `<directory>/<namespace>/`.
    /// Default: `$XDG_CACHE_HOME/webimage`, else `~/.cache/webimage`.
    public var directory: URL = DiskCacheConfig.defaultDirectory
    /// The subdirectory for this cache, so several caches can share one root. Default `"default"`.
    public var namespace: String = "default"
    /// Entries older than this many seconds (by ``expireType``) go at the next
    /// ``DiskCache/removeExpiredData()``. Default one week; < 0 never expires; 0 expires everything.
    public var maxDiskAge: TimeInterval = 7 * 24 * 60 * 60
    /// The date that decides age and trimming order. Default ``DiskCacheExpireType/accessDate`` (LRU).
    public var expireType: DiskCacheExpireType = .accessDate
    /// The size limit in bytes; 0 means unlimited. Default 512 MiB — finite, unlike SDWebImage,
    /// whose unlimited default lets a cache fill the disk.
    public var maxDiskSize: Int = 512 * 1024 * 1024
    /// When over ``maxDiskSize``, trimming deletes oldest entries until the total is strictly
    /// below `maxDiskSize × trimRatio`. Default 0.5, as SDWebImage.
    public var trimRatio: Double = 0.5
    /// Seconds after a write pushes the total over ``maxDiskSize`` before a background trim runs
    /// (writes in between share one trim). nil trims only in ``DiskCache/removeExpiredData()``.
    /// Default 1 second.
    public var automaticTrimDelay: TimeInterval? = 1
    /// Reads record the access date on disk at most this often per entry (seconds), saving an
    /// inode write per hit; the in-memory LRU order is always exact. Default 60; 0 records every read.
    public var accessDateUpdateInterval: TimeInterval = 60
    /// Where extended data is stored. Default ``DiskCacheExtendedDataStorage/automatic``.
    public var extendedDataStorage: DiskCacheExtendedDataStorage = .automatic
    /// Whether writes are flushed to disk and reads check each entry is whole. Default
    /// ``DiskCacheDurability/atomic``; a directory is meant to be used in one mode only, since
    /// each mode reads the other's entries as misses (``DiskCacheDurability/durable``) or with a
    /// trailer at their end (``DiskCacheDurability/atomic``).
    public var durability: DiskCacheDurability = .atomic
    /// How entries are laid out on disk. Default ``DiskCacheLayout/files``; a directory is meant
    /// to be used in one layout (each ignores the other's files).
    public var layout: DiskCacheLayout = .files
    /// In the ``DiskCacheLayout/packed`` layout, entries (with their key and extended data) larger
    /// than this many bytes get a file of their own instead of a place in a segment. Default 256 KiB.
    public var packedEntryLimit: Int = 256 * 1024

    /// A configuration with the defaults above.
    public init() {}

    /// A configuration rooted at `directory`, with the other defaults.
    public init(directory: URL, namespace: String = "default") {
        self.directory = directory
        self.namespace = namespace
    }

    /// `$XDG_CACHE_HOME/webimage` when that variable is an absolute path, else `~/.cache/webimage`.
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true).appendingPathComponent("webimage", isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".cache", isDirectory: true)
            .appendingPathComponent("webimage", isDirectory: true)
    }

    /// Hidden temporary files older than this (seconds) are leftovers of killed writers and are
    /// deleted by directory scans.
    static let staleTemporaryFileAge: TimeInterval = 10 * 60
}
