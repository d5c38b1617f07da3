import WebImageCodecs
import WebImageLoading
import Dispatch
import Foundation

/// How a revalidation ends (`refreshCached`, or `respectsHTTPFreshness` on a stale hit): the
/// cached copy is current (a 304, or the same bytes again from an origin that sends no
/// validators), or the new image replaces it.
extension ImageManager {
    /// The cached copy is current: keep it and renew its validators and freshness from the
    /// response. A refresh says nothing more (its hit was delivered); a revalidation before use
    /// delivers the hit now.
    func endUnchangedRevalidation(_ request: ImageManagerRequest, _ revalidation: Revalidation,
                                  response: ImageResponseInfo?) {
        if let key = request.originalKey, let renewed = renewedValidators(revalidation.stored, by: response) {
            request.originalCache.setValidators(renewed, forKey: key)
        }
        if case .beforeUse(let hit, _) = revalidation {
            deliverHit(request, hit)
        } else {
            request.operation.endSilently()
        }
    }

    /// A revalidation answered 200. When the bytes equal the original's cached bytes (an origin
    /// without ETag or Last-Modified answers every request in full), nothing changed: no second
    /// callback and no store, as SDWebImage does. Otherwise the new image is finished as usual.
    /// The cached bytes are read off the loader's thread, on a global queue.
    func finishRevalidation(_ request: ImageManagerRequest, _ revalidation: Revalidation, image: Image, data: Data,
                            response: ImageResponseInfo?) {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            guard !request.operation.isCancelled else { return }
            if let stored = storedOriginalData(request), stored == data {
                endUnchangedRevalidation(request, revalidation, response: response)
            } else {
                finish(request, image: image, data: data, cacheType: .none, response: response)
            }
        }
    }

    /// The original's stored bytes (`ImageCaching/storedData(forKey:)`; a cache that keeps none
    /// answers nil, and its refreshes then always deliver the downloaded image).
    private func storedOriginalData(_ request: ImageManagerRequest) -> Data? {
        guard let key = request.originalKey else { return nil }
        return request.originalCache.storedData(forKey: key)
    }
}
