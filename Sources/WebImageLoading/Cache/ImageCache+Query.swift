import WebImageCodecs
import Foundation

/// Querying, with SDWebImage's rules for when a query completes synchronously and when
/// asynchronously (listed on ``queryImage(forKey:options:context:cacheType:completion:)``).
extension ImageCache {
    /// Looks `key` up in memory, then on disk (SDWebImage's `queryCacheOperationForKey:…`).
    ///
    /// - A nil key or ``ImageCacheType/none`` completes synchronously with ``ImageCacheQueryResult/none``.
    /// - Memory (skipped for ``ImageCacheType/disk``): a hit with `decodeFirstFrameOnly` becomes a
    ///   new still image. For ``ImageCacheType/memory``, or a hit without `queryMemoryData`, the
    ///   result (`.memory`, image or nil) is delivered synchronously and nil is returned.
    /// - Disk: synchronous on a hit with `queryMemoryDataSync` or a miss with `queryDiskDataSync`,
    ///   else asynchronously with the completion on the callback queue: read at once when no
    ///   change to the entry is still queued, otherwise in its turn on the I/O queue (so it sees
    ///   every change asked for before it; one asked for after it may or may not be seen, and a
    ///   query joins an equal one in flight only while no change came between). The result type is
    ///   `.disk`, even on a miss. Found data is decoded with the context's decode options (a
    ///   thumbnail when it names a size) and promoted into memory when ``promotesToMemory(_:)``,
    ///   a thumbnail under its thumbnail key. Corrupt data is a miss and its entry is removed.
    /// - Returns: The token of the disk step, to cancel it: the completion then runs once with
    ///   ``ImageCacheQueryResult/none`` and the late result is dropped.
    @discardableResult
    public func queryImage(forKey key: String?, options: WebImageOptions, context: WebImageContext,
                           cacheType: ImageCacheType,
                           completion: @escaping @Sendable (ImageCacheQueryResult) -> Void) -> (any ImageCacheOperation)? {
        guard let key, cacheType != .none else {
            completion(.none)
            return nil
        }
        let decodeOptions = context.resolvedDecodeOptions(for: options, cacheKey: key)
        let memoryKey = memoryKey(forKey: key, decodeOptions: decodeOptions)
        let memoryImage = cacheType == .disk ? nil : memoryHit(forKey: memoryKey, options: options, context: context)
        if cacheType == .memory || (memoryImage != nil && !options.contains(.queryMemoryData)) {
            completion(ImageCacheQueryResult(image: memoryImage, cacheType: .memory))
            return nil
        }
        let synchronous = memoryImage != nil ? options.contains(.queryMemoryDataSync)
                                             : options.contains(.queryDiskDataSync)
        let token = ImageCacheQueryToken(key: key, callbackQueue: callbackQueue(for: context),
                                         completion: completion)
        if let memoryImage {
            // A memory hit that also wants the stored bytes: no decode.
            if synchronous {
                let data = onIOQueueSync { diskImageData(forKey: key) }
                token.finish(ImageCacheQueryResult(image: memoryImage, data: data, cacheType: .disk), synchronously: true)
            } else {
                ioQueue.async {
                    guard !token.isFinished else { return }
                    let data = self.diskImageData(forKey: key)
                    token.finish(ImageCacheQueryResult(image: memoryImage, data: data, cacheType: .disk), synchronously: false)
                }
            }
            return token
        }
        var request = diskQueryKey(key: key, memoryKey: memoryKey, decodeOptions: decodeOptions,
                                   options: options, context: context)
        request.mayUseMemory = cacheType != .disk
        if synchronous {
            let result = onIOQueueSync { performDiskQuery(request, context: context) }
            token.finish(result, synchronously: true)
        } else {
            startDiskQuery(request, context: context, token: token)
        }
        return token
    }

    /// Runs the disk step, sharing one read and decode between equal queries. With a change to
    /// the key still queued the read takes its turn on the serial I/O queue; otherwise it runs at
    /// once with the decode on a concurrent queue, so disk hits use every core.
    private func startDiskQuery(_ request: ImageCacheDiskQueryKey, context: WebImageContext,
                                token: ImageCacheQueryToken) {
        // Only a known coder instance (or the shared manager) makes two decodes interchangeable.
        let shareable = context.imageCoder == nil || request.coder != nil
        guard shareable else {
            ioQueue.async {
                guard !token.isFinished else { return }
                let read = self.diskImageDataAndSource(forKey: request.key)
                Self.decodeQueue.async {
                    guard !token.isFinished else { return }
                    token.finish(self.decodeDiskQuery(request, read, context: context, onIOQueue: false),
                                 synchronously: false)
                }
            }
            return
        }
        guard let query = inFlightQueries.join(request, token) else { return }
        if readsOffIOQueue, pendingDiskWork.isSettled(request.key) {
            // Nothing queued can change this entry: read now instead of behind other keys' writes.
            Self.decodeQueue.async {
                guard self.inFlightQueries.hasLiveWaiters(query) else { return }
                self.finishDiskQuery(query, request, self.diskImageDataAndSource(forKey: request.key), context: context)
            }
            return
        }
        ioQueue.async {
            guard self.inFlightQueries.hasLiveWaiters(query) else { return }
            let read = self.diskImageDataAndSource(forKey: request.key)
            Self.decodeQueue.async { self.finishDiskQuery(query, request, read, context: context) }
        }
    }

    /// Decodes what shared disk query `query` read and hands the result to every waiter.
    private func finishDiskQuery(_ query: Int, _ request: ImageCacheDiskQueryKey,
                                 _ read: (data: Data, fromDiskCache: Bool)?, context: WebImageContext) {
        let result = decodeDiskQuery(request, read, context: context, onIOQueue: false)
        for waiter in inFlightQueries.finish(query) {
            waiter.finish(result, synchronously: false)
        }
    }

    /// Where disk hits are decoded, and settled keys read: concurrent, off the I/O queue.
    static let decodeQueue = DispatchQueue(label: "webimage.imagecache.decode", qos: .userInitiated,
                                           attributes: .concurrent)

    private func diskQueryKey(key: String, memoryKey: String, decodeOptions: DecodeOptions,
                              options: WebImageOptions, context: WebImageContext) -> ImageCacheDiskQueryKey {
        let coder = context.imageCoder.flatMap { coder in
            type(of: coder) is AnyClass ? ObjectIdentifier(coder as AnyObject) : nil
        }
        return ImageCacheDiskQueryKey(key: key, memoryKey: memoryKey,
                                      decodeOptions: decodeOptions,
                                      coder: coder, animatedImageFactory: context.animatedImageFactory?.name,
                                      mustMatchFactory: context.requiredAnimatedImageFactory(for: options) != nil,
                                      promotes: promotesToMemory(context))
    }

    /// Reads, decodes and promotes, inline on the I/O queue (synchronous queries).
    func performDiskQuery(_ request: ImageCacheDiskQueryKey, context: WebImageContext) -> ImageCacheQueryResult {
        decodeDiskQuery(request, diskImageDataAndSource(forKey: request.key), context: context, onIOQueue: true)
    }

    /// Decodes and promotes what a disk read found. Corrupt bytes are a miss and their entry is
    /// removed (on the I/O queue, and only if the entry still holds those bytes).
    func decodeDiskQuery(_ request: ImageCacheDiskQueryKey, _ read: (data: Data, fromDiskCache: Bool)?,
                         context: WebImageContext, onIOQueue: Bool) -> ImageCacheQueryResult {
        guard let (data, fromDiskCache) = read else {
            return ImageCacheQueryResult(cacheType: .disk)
        }
        // Another query may have decoded and promoted this entry since this one was issued.
        if request.promotes, request.mayUseMemory, let image = memoryCache.get(forKey: request.memoryKey),
           !request.mustMatchFactory || image.animatedImageFactoryName == request.animatedImageFactory {
            let still = request.decodeOptions.firstFrameOnly ? image.firstFrameOnly() : image
            return ImageCacheQueryResult(image: still, data: data, cacheType: .disk)
        }
        let coder = AnimatedImageFactoryCoder.coder(
            for: context, options: request.mustMatchFactory ? .matchAnimatedImageClass : [])
        let image: Image
        do {
            image = try coder.decode(data, options: request.decodeOptions)
        } catch let error as WebImageError where error.code == .badImageData {
            // Corrupt bytes: a miss, and the entry goes so the next load fetches a good copy.
            if fromDiskCache { removeCorruptEntry(forKey: request.key, data: data, onIOQueue: onIOQueue) }
            return ImageCacheQueryResult(cacheType: .disk)
        } catch {
            // Too large or unsupported here: the bytes are fine, this decode is not possible.
            return ImageCacheQueryResult(data: data, cacheType: .disk)
        }
        if request.promotes {
            memoryCache.set(image, forKey: request.memoryKey)
        }
        return ImageCacheQueryResult(image: image, data: data, cacheType: .disk)
    }

    private func removeCorruptEntry(forKey key: String, data: Data, onIOQueue: Bool) {
        guard !onIOQueue else { return diskCache.removeData(forKey: key) }
        onIOQueueAsync(changing: key) {
            // A newer write may have replaced the bad bytes meanwhile: keep it.
            if self.diskCache.data(forKey: key) == data { self.diskCache.removeData(forKey: key) }
        }
    }

    // MARK: Synchronous getters

    /// The memory entry for `memoryKey` as a query delivers it (first frame only with
    /// `decodeFirstFrameOnly`); an entry the request's animated-image factory must have made but
    /// did not is a miss.
    package func memoryHit(forKey memoryKey: String, options: WebImageOptions,
                           context: WebImageContext = .none) -> Image? {
        guard let image = memoryCache.get(forKey: memoryKey),
              image.matchesAnimatedImageFactory(of: context, options: options) else { return nil }
        return options.contains(.decodeFirstFrameOnly) ? image.firstFrameOnly() : image
    }

    /// The image in memory for `key`, or nil. Never touches the disk.
    public func imageFromMemoryCache(forKey key: String?) -> Image? {
        key.flatMap { memoryCache.get(forKey: $0) }
    }

    /// The image decoded from the disk entry for `key` (or a read-only lookup path), promoted into
    /// memory as a query would be; waits for the I/O queue.
    public func imageFromDiskCache(forKey key: String?, options: WebImageOptions = [],
                                   context: WebImageContext = .none) -> Image? {
        guard let key else { return nil }
        let decodeOptions = context.resolvedDecodeOptions(for: options, cacheKey: key)
        let request = diskQueryKey(key: key, memoryKey: memoryKey(forKey: key, decodeOptions: decodeOptions),
                                   decodeOptions: decodeOptions, options: options, context: context)
        return onIOQueueSync { performDiskQuery(request, context: context) }.image
    }

    /// The image from memory, else from disk.
    public func imageFromCache(forKey key: String?, options: WebImageOptions = [],
                               context: WebImageContext = .none) -> Image? {
        guard let key else { return nil }
        let decodeOptions = context.resolvedDecodeOptions(for: options, cacheKey: key)
        if let image = memoryHit(forKey: memoryKey(forKey: key, decodeOptions: decodeOptions),
                                 options: options, context: context) {
            return image
        }
        return imageFromDiskCache(forKey: key, options: options, context: context)
    }
}
