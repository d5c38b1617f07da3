import WebImageCodecs
import Foundation

/// Storing: memory synchronously, disk on the I/O queue.
extension ImageCache {
    /// Stores `image` and/or `data` under `key` (SDWebImage's `storeImage:imageData:forKey:…`).
    ///
    /// Memory (when `cacheType` includes it, `image` is given and the config caches in memory) is
    /// written before this returns. Disk gets `data`, else `image` encoded (see
    /// ``encodedData(for:context:)``), on the I/O queue; the completion then runs on the callback
    /// queue with the error, if any. Without disk work the completion runs synchronously.
    public func storeImage(_ image: Image?, data: Data?, forKey key: String?, options: WebImageOptions,
                           context: WebImageContext, cacheType: ImageCacheType,
                           completion: (@Sendable (WebImageError?) -> Void)?) {
        store(image, data: data, extendedData: nil, forKey: key, context: context, cacheType: cacheType,
              completion: completion)
    }

    /// Stores as ``storeImage(_:data:forKey:options:context:cacheType:completion:)`` does, with
    /// `validators` written together with the disk entry (one record in the packed layout).
    public func storeImage(_ image: Image?, data: Data?, validators: HTTPValidators?, forKey key: String?,
                           options: WebImageOptions, context: WebImageContext, cacheType: ImageCacheType,
                           completion: (@Sendable (WebImageError?) -> Void)?) {
        let extendedData = cacheType.includesDisk && validators?.isEmpty == false
            ? validators.flatMap { try? JSONEncoder().encode($0) } : nil
        store(image, data: data, extendedData: extendedData, forKey: key, context: context, cacheType: cacheType,
              completion: completion)
    }

    private func store(_ image: Image?, data: Data?, extendedData: Data?, forKey key: String?,
                       context: WebImageContext, cacheType: ImageCacheType,
                       completion: (@Sendable (WebImageError?) -> Void)?) {
        guard let key, image != nil || data != nil else {
            completion?(nil)
            return
        }
        if cacheType.includesMemory, let image, config.shouldCacheImagesInMemory {
            memoryCache.set(image, forKey: key)
        }
        guard cacheType.includesDisk else {
            completion?(nil)
            return
        }
        let callbackQueue = callbackQueue(for: context)
        onIOQueueAsync(changing: key) {
            self.writeToDisk(image: image, data: data, extendedData: extendedData, forKey: key, context: context)
        } then: { error in
            if let completion { callbackQueue.execute { completion(error) } }
        }
    }

    /// Stores `image` (and `data`, if given) in memory and on disk.
    public func storeImage(_ image: Image, data: Data? = nil, forKey key: String?, toDisk: Bool = true,
                           completion: (@Sendable (WebImageError?) -> Void)? = nil) {
        storeImage(image, data: data, forKey: key, options: [], context: .none,
                   cacheType: toDisk ? .all : .memory, completion: completion)
    }

    /// Puts `image` in memory now, even when ``ImageCacheConfig/shouldCacheImagesInMemory`` is off.
    public func storeImageToMemory(_ image: Image, forKey key: String) {
        memoryCache.set(image, forKey: key)
    }

    /// Writes `data` to disk now, waiting for the I/O queue.
    /// - Throws: ``WebImageError/Code/cacheFailure`` when the write fails (the previous entry stays).
    public func storeImageDataToDisk(_ data: Data, forKey key: String) throws(WebImageError) {
        if let error = onIOQueueSync(changing: key, { writeToDisk(image: nil, data: data, forKey: key, context: .none) }) {
            throw error
        }
    }

    /// The bytes a store without data writes: a lazily decoded animation's own data unchanged
    /// (``Image/animatedImageData``, as SDWebImage stores an `SDAnimatedImage`), else `image`
    /// encoded by `context.imageCoder` (else ``CodersManager/shared``) with
    /// `context.imageEncodeOptions`, in that coder's ``ImageCoding/defaultEncodingFormat(for:)``.
    public func encodedData(for image: Image, context: WebImageContext) throws -> Data {
        if let data = image.animatedImageData, context.imageEncodeOptions == nil { return data }
        let coder: any ImageCoding = context.imageCoder ?? CodersManager.shared
        return try coder.encode(image, as: coder.defaultEncodingFormat(for: image),
                                options: context.imageEncodeOptions ?? .default)
    }

    /// Encodes if needed and writes; returns the failure instead of throwing. Runs on the I/O queue.
    func writeToDisk(image: Image?, data: Data?, extendedData: Data? = nil, forKey key: String,
                     context: WebImageContext) -> WebImageError? {
        let bytes: Data
        if let data {
            bytes = data
        } else if let image {
            do {
                bytes = try encodedData(for: image, context: context)
            } catch {
                return error as? WebImageError ?? WebImageError(.encodingFailed,
                    "Could not encode the image for the disk cache: \(error).", underlying: error)
            }
        } else {
            return nil
        }
        do {
            if let extendedData {
                try diskCache.setData(bytes, extendedData: extendedData, forKey: key)
            } else {
                try diskCache.setData(bytes, forKey: key)
            }
            return nil
        } catch {
            return error as? WebImageError ?? WebImageError(.cacheFailure,
                "Could not write the disk cache entry: \(error).", underlying: error)
        }
    }
}
