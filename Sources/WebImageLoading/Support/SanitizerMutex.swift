#if WEBIMAGE_TSAN
import WebImageCodecs

/// Under `make tsan` this module locks with the image layer's pthread-backed stand-in, which
/// ThreadSanitizer can see (docs/RELIABILITY.md); the alias shadows `Synchronization.Mutex`.
typealias Mutex<Value: ~Copyable> = WebImageCodecs.Mutex<Value>
#endif
