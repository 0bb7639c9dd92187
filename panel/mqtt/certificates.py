"""The venue broker's own TLS: a CA, and the broker's certificate signed by it.

`penguin-panel broker-config` makes them (unless given the venue's own certificate), so
a café's broker speaks TLS from its first start: user names and passwords never cross
the café's Wi-Fi in clear. Each cockpit trusts the CA (`ca_file`) and checks the broker's
name against the certificate, as a browser does.

Made with `cryptography` (the Python Cryptographic Authority's, the library pip and most
of the Python world rely on) rather than by running `openssl`: no command line whose flags
change between OpenSSL releases, errors as Python exceptions, and the private keys
written with their file mode set before a byte goes in.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import socket
from dataclasses import dataclass
from pathlib import Path

CA_CERT, CA_KEY = "penguin-panel-ca.crt", "penguin-panel-ca.key"
BROKER_CERT, BROKER_KEY = "penguin-panel-broker.crt", "penguin-panel-broker.key"
CA_YEARS = 20  # the CA every cockpit trusts: replacing it means visiting every cockpit
BROKER_DAYS = 825  # the broker's own certificate: the longest most TLS clients accept


@dataclass(frozen=True)
class Made:
    """The files broker-config made or kept: the CA (to copy to each cockpit) and the
    broker's certificate and key (for Mosquitto)."""

    ca: Path
    cert: Path
    key: Path
    new_ca: bool


def default_names() -> list[str]:
    """The names a cockpit may reach the broker by: this machine's name, with .local
    (mDNS), and the loopback ones for the venue on the same machine."""
    host = socket.gethostname().split(".")[0] or "localhost"
    return list(dict.fromkeys([host, f"{host}.local", "localhost", "127.0.0.1", "::1"]))


def make(folder: Path, names: list[str]) -> Made:
    """The CA in `folder` (kept when it is there: the cockpits already trust it) and a new
    broker certificate for `names` (host names or addresses) signed by it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_cert_path, ca_key_path = folder / CA_CERT, folder / CA_KEY
    new_ca = not (ca_cert_path.exists() and ca_key_path.exists())
    if new_ca:
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Penguin Panel venue CA")])
        ca_cert = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name)
                   .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5))
                   .not_valid_after(now + datetime.timedelta(days=365 * CA_YEARS))
                   .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
                   .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False,
                                                key_encipherment=False, data_encipherment=False, key_agreement=False,
                                                key_cert_sign=True, crl_sign=True, encipher_only=False,
                                                decipher_only=False), critical=True)
                   .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
                   .sign(ca_key, hashes.SHA256()))
        _write_key(ca_key_path, ca_key)
        ca_cert_path.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    else:
        ca_cert = x509.load_pem_x509_certificate(ca_cert_path.read_bytes())
        ca_key = serialization.load_pem_private_key(ca_key_path.read_bytes(), password=None)

    key = ec.generate_private_key(ec.SECP256R1())
    alt = []
    for name in names:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alt.append(x509.DNSName(name))
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])]))
            .issuer_name(ca_cert.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=BROKER_DAYS))
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    _write_key(folder / BROKER_KEY, key)
    (folder / BROKER_CERT).write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return Made(ca_cert_path, folder / BROKER_CERT, folder / BROKER_KEY, new_ca)


def _write_key(path: Path, key) -> None:
    """A private key, readable by its owner only from the first byte on."""
    from cryptography.hazmat.primitives import serialization

    data = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        os.fchmod(f.fileno(), 0o600)
        f.write(data)
