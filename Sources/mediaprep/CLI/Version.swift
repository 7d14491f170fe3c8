/// The one place the version is written: `--version`, SARIF's tool version and the Debian package
/// (`scripts/make-deb.sh` asks the built binary) all read it.
enum Version {
    static let string = "0.7.0"
}
