import WebImageCodecs
import Foundation

/// Removing, clearing, presence checks, disk data and disk statistics.
extension ImageCache {
    // MARK: Remove

    /// Removes `key` from memory (synchronously) and/or disk (on the I/O queue, completion on
    /// ``ImageCacheConfig/callbackQueue``). Without disk work, or with a nil key, the completion
    /// runs synchronously.
    public func removeImage(forKey key: String?, cacheType: ImageCacheType,
                            completion: (@Sendable () -> Void)?) {
        guard let key else {
            completion?()
            return
        }
        if cacheType.includesMemory { memoryCache.remove(forKey: key) }
        guard cacheType.includesDisk else {
            completion?()
            return
        }
        let callbackQueue = config.callbackQueue
        onIOQueueAsync(changing: key) {
            self.diskCache.removeData(forKey: key)
        } then: {
            if let completion { callbackQueue.execute(completion) }
        }
    }

    /// Removes `key` from memory, and from disk unless `fromDisk` is false.
    public func removeImage(forKey key: String?, fromDisk: Bool = true, completion: (@Sendable () -> Void)? = nil) {
        removeImage(forKey: key, cacheType: fromDisk ? .all : .memory, completion: completion)
    }

    /// Removes `key` from memory now.
    public func removeImageFromMemory(forKey key: String) {
        memoryCache.remove(forKey: key)
    }

    /// Removes `key` from disk now, waiting for the I/O queue.
    public func removeImageFromDisk(forKey key: String) {
        onIOQueueSync(changing: key) { diskCache.removeData(forKey: key) }
    }

    // MARK: Clear

    /// Empties memory (synchronously) and/or disk (asynchronously). Clearing one never touches
    /// the other.
    public func clear(cacheType: ImageCacheType, completion: (@Sendable () -> Void)?) {
        if cacheType.includesMemory { clearMemory() }
        if cacheType.includesDisk {
            clearDisk(completion: completion)
        } else {
            completion?()
        }
    }

    /// Empties the memory cache now, then the pixel memory the bitmap pool keeps for reuse (what
    /// a process short of memory wants from both).
    public func clearMemory() {
        memoryCache.removeAll()
        BitmapPool.current.removeAll()
    }

    /// Shrinks the memory cache by `fraction` (``MemoryCache/shrink(by:)``); the bitmap pool is
    /// left to whoever follows the pressure for the process (it is shared by every cache).
    public func shrinkMemory(by fraction: Double) {
        memoryCache.shrink(by: fraction)
    }

    /// Deletes every disk entry on the I/O queue; memory is kept.
    public func clearDisk(completion: (@Sendable () -> Void)? = nil) {
        let callbackQueue = config.callbackQueue
        onIOQueueAsync(changing: nil) {
            self.diskCache.removeAll()
        } then: {
            if let completion { callbackQueue.execute(completion) }
        }
    }

    /// Deletes entries past ``DiskCacheConfig/maxDiskAge``, then trims to
    /// ``DiskCacheConfig/maxDiskSize`` (the disk cache's `removeExpiredData`), on the I/O queue.
    public func deleteOldFiles(completion: (@Sendable () -> Void)? = nil) {
        let callbackQueue = config.callbackQueue
        onIOQueueAsync(changing: nil) {
            self.diskCache.removeExpiredData()
        } then: {
            if let completion { callbackQueue.execute(completion) }
        }
    }

    // MARK: Contains

    /// Reports ``ImageCacheType/memory`` (checked first, answered synchronously),
    /// ``ImageCacheType/disk`` (checked on the I/O queue; the read-only lookup paths do not count)
    /// or ``ImageCacheType/none``.
    public func containsImage(forKey key: String?, cacheType: ImageCacheType,
                              completion: @escaping @Sendable (ImageCacheType) -> Void) {
        guard let key, cacheType != .none else { return completion(.none) }
        if cacheType.includesMemory, memoryCache.contains(forKey: key) { return completion(.memory) }
        guard cacheType.includesDisk else { return completion(.none) }
        let callbackQueue = config.callbackQueue
        ioQueue.async {
            let found = self.diskCache.containsData(forKey: key)
            callbackQueue.execute { completion(found ? .disk : .none) }
        }
    }

    /// Whether the disk cache has an entry for `key`; waits for the I/O queue.
    public func diskImageDataExists(forKey key: String?) -> Bool {
        guard let key else { return false }
        return onIOQueueSync { diskCache.containsData(forKey: key) }
    }

    // MARK: Data

    /// The stored bytes for `key`, from the disk cache or else a read-only lookup path; waits for
    /// the I/O queue.
    public func diskImageData(forKey key: String?) -> Data? {
        guard let key else { return nil }
        return onIOQueueSync { diskImageDataAndSource(forKey: key)?.data }
    }

    /// The bytes for `key` and whether they came from the disk cache itself (true) or from a
    /// read-only lookup path (false).
    func diskImageDataAndSource(forKey key: String) -> (data: Data, fromDiskCache: Bool)? {
        if let data = diskCache.data(forKey: key) { return (data, true) }
        var paths: [String] = []
        if !config.additionalCacheDirectories.isEmpty {
            let fileName = (diskCache.cachePath(forKey: key) as NSString).lastPathComponent
            paths = config.additionalCacheDirectories.map { $0.appendingPathComponent(fileName).path }
        }
        if let custom = config.additionalCachePath?(key) { paths.append(custom) }
        for path in paths {
            if case .success(let data) = DiskCacheFileSystem.readFile(atPath: path), !data.isEmpty {
                return (data, false)
            }
        }
        return nil
    }

    // MARK: Statistics

    /// The disk cache's total size in bytes; waits for the I/O queue.
    public var totalDiskSize: Int { onIOQueueSync { diskCache.totalSize } }

    /// The number of disk entries; waits for the I/O queue.
    public var totalDiskCount: Int { onIOQueueSync { diskCache.totalCount } }

    /// Counts the disk entries and their bytes on the I/O queue; the completion gets
    /// `(count, size)` on ``ImageCacheConfig/callbackQueue``.
    public func calculateSize(completion: @escaping @Sendable (_ fileCount: Int, _ totalSize: Int) -> Void) {
        let callbackQueue = config.callbackQueue
        ioQueue.async {
            let count = self.diskCache.totalCount
            let size = self.diskCache.totalSize
            callbackQueue.execute { completion(count, size) }
        }
    }
}
