/*
 * The broker side of AWS MSK IAM login for `reconciler local up --security msk-iam`: checks the
 * SigV4-presigned tokens clients send over SASL OAUTHBEARER, without AWS.
 *
 * A token is the base64url (unpadded) of
 *   https://kafka.<region>.amazonaws.com/?Action=kafka-cluster%3AConnect&X-Amz-Algorithm=...
 * presigned for service kafka-cluster. This handler decodes it and checks, in order: the URL's
 * shape (https, host kafka.<region>.amazonaws.com, path /), the action (kafka-cluster:Connect),
 * the algorithm (AWS4-HMAC-SHA256), the credential scope (<key id>/<date>/<region>/
 * kafka-cluster/aws4_request) and that its region is this cluster's, the access key id (one of
 * the static test keys of the credentials file), the expiry (X-Amz-Date + X-Amz-Expires, at
 * most 900 s, not signed more than 5 minutes in the future), then the signature, recomputed from
 * the key's secret: the canonical request GET, /, the signed query parameters (all but
 * X-Amz-Signature and User-Agent, which signers append after signing), the host header and the
 * SHA-256 of the empty payload, as botocore's SigV4QueryAuth signs it. The principal is the
 * ARN the credentials file gives the key; the session lasts until the token expires.
 *
 * It does not check IAM policies (any valid key may connect), session tokens against STS
 * (X-Amz-Security-Token is signed like any parameter, never validated), nor replays.
 *
 * JAAS options of the listener's OAUTHBEARER login module: region="..." and
 * credentialsFile="<path>", a properties file of key.<access key id>.secret and
 * key.<access key id>.arn. A refusal's reason goes back to the client as the SASL error
 * message, so it never contains a secret, the access key id or the token.
 */
package dev.reconciler.local;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerExtensionsValidatorCallback;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

public class MskIamVerifier implements AuthenticateCallbackHandler {
    private static final Logger LOG = LoggerFactory.getLogger(MskIamVerifier.class);
    private static final String SERVICE = "kafka-cluster";
    private static final String ACTION = "kafka-cluster:Connect";
    private static final long MAX_EXPIRES = 900;
    private static final long FUTURE_SKEW = 300;
    private static final String EMPTY_SHA256 =
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    private static final DateTimeFormatter AMZ_DATE =
        DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    private String region;
    private final Map<String, String> secrets = new TreeMap<>();
    private final Map<String, String> arns = new TreeMap<>();

    /** Why a token is refused: its message goes to the client. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }

    @Override
    public void configure(Map<String, ?> configs, String mechanism, List<AppConfigurationEntry> jaas) {
        Map<String, ?> options = jaas.get(0).getOptions();
        region = String.valueOf(options.get("region"));
        Properties keys = new Properties();
        try (InputStream in = Files.newInputStream(Paths.get(String.valueOf(options.get("credentialsFile"))))) {
            keys.load(in);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the MSK IAM credentials file: " + e.getMessage());
        }
        for (String name : keys.stringPropertyNames()) {
            String[] parts = name.split("\\.");
            if (parts.length == 3 && parts[0].equals("key") && parts[2].equals("secret")) {
                secrets.put(parts[1], keys.getProperty(name));
                arns.put(parts[1], keys.getProperty("key." + parts[1] + ".arn", "arn:aws:iam::000000000000:user/" + parts[1]));
            }
        }
        LOG.info("MSK IAM verifier: region {}, {} access key(s)", region, secrets.size());
    }

    @Override
    public void handle(Callback[] callbacks) throws IOException, UnsupportedCallbackException {
        for (Callback callback : callbacks) {
            if (callback instanceof OAuthBearerValidatorCallback) {
                OAuthBearerValidatorCallback validator = (OAuthBearerValidatorCallback) callback;
                try {
                    validator.token(verify(validator.tokenValue(), System.currentTimeMillis()));
                } catch (Refused e) {
                    LOG.info("MSK IAM login refused: {}", e.getMessage());
                    validator.error(e.getMessage(), null, null);
                }
            } else if (!(callback instanceof OAuthBearerExtensionsValidatorCallback)) {
                throw new UnsupportedCallbackException(callback);
            }
            // extensions: none are used; unvalidated ones are ignored by Kafka
        }
    }

    OAuthBearerToken verify(String token, long nowMs) throws Refused {
        URI url;
        try {
            url = new URI(new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException | java.net.URISyntaxException e) {
            throw new Refused("invalid_token: not an MSK IAM token (the base64url of a presigned URL)");
        }
        String host = String.valueOf(url.getHost());
        if (!"https".equals(url.getScheme()) || !host.startsWith("kafka.") || !host.endsWith(".amazonaws.com")
                || !"/".equals(url.getRawPath()) || url.getRawQuery() == null) {
            throw new Refused("invalid_token: not an MSK IAM token (no https://kafka.REGION.amazonaws.com/ URL)");
        }
        Map<String, String> params = new TreeMap<>();
        List<String> signed = new ArrayList<>();
        for (String pair : url.getRawQuery().split("&")) {
            int eq = pair.indexOf('=');
            String key = decode(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
            params.put(key, value);
            if (!key.equals("X-Amz-Signature") && !key.equals("User-Agent")) {
                signed.add(encode(key) + "=" + encode(value));
            }
        }
        if (!ACTION.equals(params.get("Action"))) {
            throw new Refused("invalid_token: the token's action is not " + ACTION);
        }
        if (!"AWS4-HMAC-SHA256".equals(params.get("X-Amz-Algorithm")) || !"host".equals(params.get("X-Amz-SignedHeaders"))) {
            throw new Refused("invalid_token: the token is not signed with AWS4-HMAC-SHA256 over the host header");
        }
        String[] scope = String.valueOf(params.get("X-Amz-Credential")).split("/");
        if (scope.length != 5 || !SERVICE.equals(scope[3]) || !"aws4_request".equals(scope[4])) {
            throw new Refused("invalid_token: the token's credential scope is not KEY/DATE/REGION/kafka-cluster/aws4_request");
        }
        if (!region.equals(scope[2]) || !host.equals("kafka." + region + ".amazonaws.com")) {
            throw new Refused("invalid_token: the token is signed for region " + scope[2] + " but this cluster is in region " + region);
        }
        String secret = secrets.get(scope[0]);
        if (secret == null) {
            throw new Refused("invalid_token: the token's access key is not known to this cluster");
        }
        long signedAt;
        long expires;
        try {
            signedAt = Instant.from(AMZ_DATE.parse(params.get("X-Amz-Date"))).getEpochSecond();
            expires = Long.parseLong(params.get("X-Amz-Expires"));
        } catch (DateTimeParseException | NumberFormatException | NullPointerException e) {
            throw new Refused("invalid_token: the token has no valid X-Amz-Date and X-Amz-Expires");
        }
        if (!params.get("X-Amz-Date").startsWith(scope[1])) {
            throw new Refused("invalid_token: the token's X-Amz-Date is not the date of its credential scope");
        }
        long now = nowMs / 1000;
        if (expires < 1 || expires > MAX_EXPIRES) {
            throw new Refused("invalid_token: X-Amz-Expires " + expires + " is not 1 to " + MAX_EXPIRES + " seconds");
        }
        if (signedAt > now + FUTURE_SKEW) {
            throw new Refused("invalid_token: the token is signed " + (signedAt - now) + " s in the future (X-Amz-Date " + params.get("X-Amz-Date") + ", broker time " + AMZ_DATE.format(Instant.ofEpochSecond(now)) + ")");
        }
        if (now >= signedAt + expires) {
            throw new Refused("invalid_token: the token expired at " + AMZ_DATE.format(Instant.ofEpochSecond(signedAt + expires)) + " (X-Amz-Date + X-Amz-Expires), broker time " + AMZ_DATE.format(Instant.ofEpochSecond(now)));
        }
        Collections.sort(signed);
        String canonical = "GET\n/\n" + String.join("&", signed) + "\nhost:" + host + "\n\nhost\n" + EMPTY_SHA256;
        String credentialScope = scope[1] + "/" + scope[2] + "/" + SERVICE + "/aws4_request";
        String toSign = "AWS4-HMAC-SHA256\n" + params.get("X-Amz-Date") + "\n" + credentialScope + "\n" + hex(sha256(canonical));
        byte[] key = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), scope[1]);
        key = hmac(hmac(hmac(key, scope[2]), SERVICE), "aws4_request");
        String expected = hex(hmac(key, toSign));
        String given = String.valueOf(params.get("X-Amz-Signature"));
        if (!MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII), given.getBytes(StandardCharsets.US_ASCII))) {
            throw new Refused("invalid_token: the signature does not match the secret access key of the token's access key id");
        }
        String principal = arns.get(scope[0]);
        LOG.info("MSK IAM login of {} signed at {} valid until {}", principal, params.get("X-Amz-Date"),
            AMZ_DATE.format(Instant.ofEpochSecond(signedAt + expires)));
        return new Token(token, principal, signedAt * 1000, (signedAt + expires) * 1000);
    }

    private static String decode(String text) {
        return URLDecoder.decode(text.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** RFC 3986 percent-encoding of everything but the unreserved characters, as SigV4 wants. */
    private static String encode(String text) {
        StringBuilder out = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~') {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(byte[] bytes) {
        StringBuilder out = new StringBuilder();
        for (byte b : bytes) {
            out.append(String.format("%02x", b & 0xff));
        }
        return out.toString();
    }

    @Override
    public void close() {
    }

    /** A verified token: its principal and lifetime (the broker re-authenticates by it). */
    static final class Token implements OAuthBearerToken {
        private final String value;
        private final String principal;
        private final long start;
        private final long lifetime;

        Token(String value, String principal, long start, long lifetime) {
            this.value = value;
            this.principal = principal;
            this.start = start;
            this.lifetime = lifetime;
        }

        @Override
        public String value() {
            return value;
        }

        @Override
        public Set<String> scope() {
            return Collections.emptySet();
        }

        @Override
        public long lifetimeMs() {
            return lifetime;
        }

        @Override
        public String principalName() {
            return principal;
        }

        @Override
        public Long startTimeMs() {
            return start;
        }
    }
}
