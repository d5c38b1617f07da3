import WebImageCodecs
import Foundation

/// SDWebImage's cache-key rules: how a transformer or a thumbnail size is folded into a key, so a
/// transformed image and its original are cached side by side.
public enum CacheKey {
    /// The key for `key` transformed by a transformer whose key is `transformerKey`
    /// (SDWebImage's `SDTransformedKeyForKey`). `-transformerKey` goes before the path extension:
    ///
    /// - a URL that is not a file URL and whose path has an extension: inserted in the URL's path,
    ///   query and fragment kept (`http://foo/a.png?x=1` → `http://foo/a-T.png?x=1`);
    /// - a file URL or a plain string with an extension: `a.png` → `a-T.png`;
    /// - no extension (as Foundation's `URL.pathExtension` sees it, so `.image` and `image.` have
    ///   none): appended, `http://foo/a?x=1` → `http://foo/a?x=1-T`.
    ///
    /// Unlike SDWebImage, which rebuilds the URL through `NSURLComponents`, the key's text is kept
    /// verbatim: nothing is percent-encoded or normalised, so `{`/`}` of a thumbnail key stay
    /// readable and transforming an already transformed key stays predictable.
    public static func transformedKey(for key: String, transformerKey: String) -> String {
        let url = URL(string: key)
        let ext = url?.pathExtension ?? String(DiskCacheFileName.plainPathExtension(key))
        guard !ext.isEmpty else { return key + "-" + transformerKey }
        if let url, !url.isFileURL {
            // The path ends at the first `?` or `#` (RFC 3986); query and fragment stay as they are.
            let pathEnd = key.firstIndex { $0 == "?" || $0 == "#" } ?? key.endIndex
            return insertingBeforeExtension(key[..<pathEnd], "-" + transformerKey) + key[pathEnd...]
        }
        return insertingBeforeExtension(Substring(key), "-" + transformerKey)
    }

    /// The transformer key SDWebImage uses for a thumbnail decode:
    /// `Thumbnail({width,height},preserveAspectRatio)` with six decimals,
    /// e.g. `Thumbnail({100.000000,100.000000},1)`.
    public static func thumbnailTransformerKey(width: Double, height: Double,
                                               preserveAspectRatio: Bool) -> String {
        String(format: "Thumbnail({%f,%f},%d)", width, height, preserveAspectRatio ? 1 : 0)
    }

    /// The key for a thumbnail of `key` (SDWebImage's `SDThumbnailedKeyForKey`):
    /// ``transformedKey(for:transformerKey:)`` with ``thumbnailTransformerKey(width:height:preserveAspectRatio:)``.
    /// When a thumbnail is also transformed, this is applied first and the transformer second.
    public static func thumbnailKey(for key: String, width: Double, height: Double,
                                    preserveAspectRatio: Bool) -> String {
        transformedKey(for: key, transformerKey: thumbnailTransformerKey(
            width: width, height: height, preserveAspectRatio: preserveAspectRatio))
    }

    /// ``thumbnailKey(for:width:height:preserveAspectRatio:)`` for a size in pixels.
    public static func thumbnailKey(for key: String, size: PixelSize,
                                    preserveAspectRatio: Bool) -> String {
        thumbnailKey(for: key, width: Double(size.width), height: Double(size.height),
                     preserveAspectRatio: preserveAspectRatio)
    }

    /// True when `key` names a thumbnail (it contains `-Thumbnail(`), as the cache checks before
    /// deciding how to decode data found on disk.
    public static func isThumbnailKey(_ key: String) -> Bool {
        key.contains("-Thumbnail(")
    }

    /// `path` with `insertion` placed before the dot of the last path component's extension
    /// (trailing slashes ignored), or appended when that component has no extension.
    static func insertingBeforeExtension(_ path: Substring, _ insertion: String) -> String {
        var end = path.endIndex
        while end > path.startIndex, path[path.index(before: end)] == "/" {
            end = path.index(before: end)
        }
        let body = path[..<end]
        let componentStart = body.lastIndex(of: "/").map { body.index(after: $0) } ?? body.startIndex
        guard let dot = body[componentStart...].lastIndex(of: "."), dot > componentStart,
              body.index(after: dot) < body.endIndex
        else { return String(body) + insertion + path[end...] }
        return String(body[..<dot]) + insertion + body[dot...] + path[end...]
    }
}
