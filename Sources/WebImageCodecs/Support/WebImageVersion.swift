/// The library's version, as sent in the downloader's User-Agent and printed by `webimage --version`.
public enum WebImageVersion {
    /// The library version, as `webimage --version` prints it.
    public static let string = "0.1.0"
}
