/// The library's version, as sent in the downloader's User-Agent and printed by `webimage --version`.
public enum WebImageVersion {
    public static let string = "0.1.0"
}
