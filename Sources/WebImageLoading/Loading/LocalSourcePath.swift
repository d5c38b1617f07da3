import WebImageCodecs
import Foundation
import Glibc

/// Where a `local:///path` URL points under a root directory, and the checks that keep it there.
///
/// The URL's path is percent-decoded once (so `%2F` is a separator and `%2e%2e` is `..`), then
/// split into segments; a `..` segment in any spelling is refused, empty and `.` segments are
/// skipped, so `local:////etc/passwd` names `ROOT/etc/passwd`. The joined path is then resolved
/// with `realpath` (symbolic links followed) and must still lie under the root's own real path: a
/// link inside the root that points outside it is refused too.
struct LocalSourcePath: Sendable {
    /// The root's real path (no trailing `/` unless it is `/`).
    let root: String

    /// The root directory `root`, resolved; ``WebImageError/Code/invalidURL`` when it is not an
    /// existing directory.
    init(root: URL) throws(WebImageError) {
        guard let real = Self.realPath(root.path) else {
            throw WebImageError(.invalidURL, "The local file root \(root.path) does not exist or cannot be resolved.")
        }
        var st = stat()
        guard stat(real, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw WebImageError(.invalidURL, "The local file root \(root.path) is not a directory.")
        }
        self.root = real
    }

    /// The path relative to the root that `url` names (segments joined by `/`, no leading `/`),
    /// or why it is refused: ``WebImageError/Code/invalidURL`` for a URL that is not
    /// `local:///path` (a host, a malformed `%`-escape, a NUL byte, no file name),
    /// ``WebImageError/Code/sourceNotAllowed`` for a `..` segment.
    static func relativePath(of url: URL) -> Result<String, WebImageError> {
        guard url.scheme?.lowercased() == "local" else {
            return .failure(WebImageError(.invalidURL, "Not a local:// URL.", url: url))
        }
        if let host = url.host, !host.isEmpty {
            return .failure(WebImageError(.invalidURL,
                "A local URL has no host: write local:///path (three slashes), not local://\(host.prefix(64))/….", url: url))
        }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let decoded = components.percentEncodedPath.removingPercentEncoding else {
            return .failure(WebImageError(.invalidURL, "The local path has a malformed %-escape.", url: url))
        }
        guard !decoded.utf8.contains(0) else {
            return .failure(WebImageError(.invalidURL, "The local path contains a NUL byte.", url: url))
        }
        var segments: [Substring] = []
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) where segment != "." {
            if segment == ".." {
                return .failure(WebImageError(.sourceNotAllowed,
                    "The local path \(decoded.prefix(256)) leaves the root directory (it has a \"..\" segment).", url: url))
            }
            segments.append(segment)
        }
        guard !segments.isEmpty else {
            return .failure(WebImageError(.invalidURL, "The local URL names no file.", url: url))
        }
        return .success(segments.joined(separator: "/"))
    }

    /// The real path of the file `url` names under the root, or why not: the errors of
    /// ``relativePath(of:)``; ``WebImageError/Code/invalidDownloadStatusCode`` with HTTP status 404
    /// when nothing is there; ``WebImageError/Code/sourceNotAllowed`` when its real path (links
    /// followed) is outside the root or it may not be read.
    func resolve(_ url: URL) -> Result<String, WebImageError> {
        let relative: String
        switch Self.relativePath(of: url) {
        case .success(let path): relative = path
        case .failure(let error): return .failure(error)
        }
        let joined = (root == "/" ? "" : root) + "/" + relative
        errno = 0
        guard let real = Self.realPath(joined) else {
            let code = errno
            if code == EACCES {
                return .failure(WebImageError(.sourceNotAllowed, "The local file \(relative) may not be read (permission denied).", url: url))
            }
            return .failure(Self.notFound(relative, url: url))
        }
        guard real == root || real.hasPrefix(root == "/" ? "/" : root + "/") else {
            return .failure(WebImageError(.sourceNotAllowed,
                "The local path \(relative) resolves outside the root directory (through a symbolic link).", url: url))
        }
        return .success(real)
    }

    /// The ``WebImageError/Code/invalidDownloadStatusCode`` with status 404 that says no file is at `relative`.
    static func notFound(_ relative: String, url: URL, reason: String = "no such file") -> WebImageError {
        WebImageError(.invalidDownloadStatusCode, "The local file \(relative.prefix(256)) was not found (\(reason)).",
                      url: url, httpStatus: 404)
    }

    /// `realpath(path)`, or nil with `errno` set.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
