/**
 * A self-signed certificate for 127.0.0.1, made by the `openssl` command for one test run: some
 * vendor libraries refuse an authority that is not HTTPS (MSAL, under @azure/identity), so their
 * loopback mock serves TLS and the gateway trusts this certificate (`NODE_EXTRA_CA_CERTS`).
 * Undefined when `openssl` is not installed (the test says so and skips).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LoopbackCertificate {
  key: string;
  cert: string;
  /** The certificate's file, for `NODE_EXTRA_CA_CERTS`; removed by `remove()`. */
  certFile: string;
  remove(): void;
}

export function loopbackCertificate(): LoopbackCertificate | undefined {
  const directory = mkdtempSync(join(tmpdir(), 'mock-tls-'));
  const keyFile = join(directory, 'key.pem');
  const certFile = join(directory, 'cert.pem');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
  } catch {
    rmSync(directory, { recursive: true, force: true });
    return undefined;
  }
  return {
    key: readFileSync(keyFile, 'utf8'),
    cert: readFileSync(certFile, 'utf8'),
    certFile,
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}
