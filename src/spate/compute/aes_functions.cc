// Copyright spate authors.
// aes_encrypt / aes_decrypt / try_aes_decrypt with Spark's layout (OpenSSL's libcrypto
// for the cipher): GCM (the default) writes a 12-byte IV, the ciphertext and a 16-byte
// tag, with an optional AAD; CBC writes a 16-byte IV and the PKCS#5-padded ciphertext;
// ECB only the padded ciphertext. The IV is random unless given. Keys have 16, 24 or 32
// bytes.

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cctype>
#include <memory>

#include "spate/columnar/builder.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"

namespace spate {

namespace {

using Args = std::vector<BoundExprPtr>;
using Cols = std::vector<ColumnPtr>;

enum class AesMode : uint8_t { kGcm, kCbc, kEcb };

// Spark names both functions in the parameter errors.
const char* const kShownName = "`aes_encrypt`/`aes_decrypt`";

std::string Upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

Status ModeError(const std::string& fn, std::string_view mode, std::string_view padding) {
  (void)fn;
  return Status::Error("UNSUPPORTED_FEATURE.AES_MODE", {{"mode", std::string(mode)},
                                                        {"padding", std::string(padding)},
                                                        {"functionName", kShownName}});
}

// Mode and padding as Spark accepts them: GCM with NONE, CBC and ECB with PKCS (DEFAULT
// picks these).
Result<AesMode> ParseMode(const std::string& fn, std::string_view mode_text,
                          std::string_view padding_text) {
  std::string mode = Upper(mode_text), padding = Upper(padding_text);
  if (mode == "GCM" && (padding == "NONE" || padding == "DEFAULT")) return AesMode::kGcm;
  if (mode == "CBC" && (padding == "PKCS" || padding == "DEFAULT")) return AesMode::kCbc;
  if (mode == "ECB" && (padding == "PKCS" || padding == "DEFAULT")) return AesMode::kEcb;
  return ModeError(fn, mode_text, padding_text);
}

const EVP_CIPHER* Cipher(AesMode mode, size_t key_len) {
  switch (mode) {
    case AesMode::kGcm:
      return key_len == 16   ? EVP_aes_128_gcm()
             : key_len == 24 ? EVP_aes_192_gcm()
                             : EVP_aes_256_gcm();
    case AesMode::kCbc:
      return key_len == 16   ? EVP_aes_128_cbc()
             : key_len == 24 ? EVP_aes_192_cbc()
                             : EVP_aes_256_cbc();
    case AesMode::kEcb:
      break;
  }
  return key_len == 16   ? EVP_aes_128_ecb()
         : key_len == 24 ? EVP_aes_192_ecb()
                         : EVP_aes_256_ecb();
}

struct CtxFree {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};

Status CryptoError(const std::string& fn, const std::string& detail) {
  return Status::Error("INVALID_PARAMETER_VALUE.AES_CRYPTO_ERROR",
                       {{"parameter", "`expr`, `key`"},
                        {"functionName", kShownName},
                        {"detailMessage", detail}});
}

// Encrypts `in` into `out` (IV first for GCM / CBC). `iv` empty = random.
Status Encrypt(const std::string& fn, AesMode mode, std::string_view key,
               std::string_view in, std::string_view iv, std::string_view aad,
               std::string* out) {
  const size_t iv_len = mode == AesMode::kGcm ? 12 : mode == AesMode::kCbc ? 16 : 0;
  std::string ivb(iv);
  if (mode == AesMode::kEcb && !iv.empty())
    return Status::Error("UNSUPPORTED_FEATURE.AES_MODE_IV",
                         {{"mode", "ECB"}, {"functionName", "`" + fn + "`"}});
  if (mode != AesMode::kGcm && !aad.empty()) {
    return Status::Error("UNSUPPORTED_FEATURE.AES_MODE_AAD",
                         {{"mode", mode == AesMode::kCbc ? "CBC" : "ECB"},
                          {"functionName", "`" + fn + "`"}});
  }
  if (iv_len > 0) {
    if (ivb.empty()) {
      ivb.resize(iv_len);
      RAND_bytes(reinterpret_cast<unsigned char*>(ivb.data()), static_cast<int>(iv_len));
    } else if (ivb.size() != iv_len) {
      return Status::Error("INVALID_PARAMETER_VALUE.AES_IV_LENGTH",
                           {{"parameter", "`iv`"},
                            {"functionName", kShownName},
                            {"actualLength", std::to_string(ivb.size())},
                            {"mode", mode == AesMode::kGcm ? "GCM" : "CBC"}});
    }
  }
  std::unique_ptr<EVP_CIPHER_CTX, CtxFree> ctx(EVP_CIPHER_CTX_new());
  auto k = reinterpret_cast<const unsigned char*>(key.data());
  auto v = reinterpret_cast<const unsigned char*>(ivb.data());
  if (EVP_EncryptInit_ex(ctx.get(), Cipher(mode, key.size()), nullptr, k,
                         iv_len ? v : nullptr) != 1) {
    return CryptoError(fn, "cipher initialization failed");
  }
  out->assign(ivb);
  size_t at = out->size();
  out->resize(at + in.size() + 32);
  int len = 0;
  if (mode == AesMode::kGcm && !aad.empty()) {
    EVP_EncryptUpdate(ctx.get(), nullptr, &len,
                      reinterpret_cast<const unsigned char*>(aad.data()),
                      static_cast<int>(aad.size()));
  }
  auto o = reinterpret_cast<unsigned char*>(out->data());
  EVP_EncryptUpdate(ctx.get(), o + at, &len,
                    reinterpret_cast<const unsigned char*>(in.data()),
                    static_cast<int>(in.size()));
  at += static_cast<size_t>(len);
  EVP_EncryptFinal_ex(ctx.get(), o + at, &len);
  at += static_cast<size_t>(len);
  if (mode == AesMode::kGcm) {
    EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, 16, o + at);
    at += 16;
  }
  out->resize(at);
  return Status::OK();
}

// Decrypts Spark's layout; false when the data, key or tag do not fit.
bool Decrypt(AesMode mode, std::string_view key, std::string_view in,
             std::string_view aad, std::string* out) {
  const size_t iv_len = mode == AesMode::kGcm ? 12 : mode == AesMode::kCbc ? 16 : 0;
  const size_t tag_len = mode == AesMode::kGcm ? 16 : 0;
  if (in.size() < iv_len + tag_len) return false;
  std::string_view iv = in.substr(0, iv_len);
  std::string_view body = in.substr(iv_len, in.size() - iv_len - tag_len);
  std::unique_ptr<EVP_CIPHER_CTX, CtxFree> ctx(EVP_CIPHER_CTX_new());
  if (EVP_DecryptInit_ex(
          ctx.get(), Cipher(mode, key.size()), nullptr,
          reinterpret_cast<const unsigned char*>(key.data()),
          iv_len ? reinterpret_cast<const unsigned char*>(iv.data()) : nullptr) != 1) {
    return false;
  }
  int len = 0;
  if (mode == AesMode::kGcm && !aad.empty()) {
    EVP_DecryptUpdate(ctx.get(), nullptr, &len,
                      reinterpret_cast<const unsigned char*>(aad.data()),
                      static_cast<int>(aad.size()));
  }
  out->resize(body.size() + 32);
  auto o = reinterpret_cast<unsigned char*>(out->data());
  if (EVP_DecryptUpdate(ctx.get(), o, &len,
                        reinterpret_cast<const unsigned char*>(body.data()),
                        static_cast<int>(body.size())) != 1) {
    return false;
  }
  size_t at = static_cast<size_t>(len);
  if (mode == AesMode::kGcm) {
    std::string tag(in.substr(in.size() - tag_len));
    EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, 16, tag.data());
  }
  if (EVP_DecryptFinal_ex(ctx.get(), o + at, &len) != 1) return false;
  out->resize(at + static_cast<size_t>(len));
  return true;
}

Result<BoundExprPtr> BinaryArg(const std::string& fn, const Args& args, size_t k) {
  TypeId t = args[k]->type()->id();
  if (t == TypeId::kBinary) return args[k];
  if (t == TypeId::kString || t == TypeId::kNull)
    return ImplicitCast(args[k], DataType::Binary());
  return fn::UnexpectedType(fn, args, k, "\"BINARY\"");
}

// aes_encrypt(input, key[, mode[, padding[, iv[, aad]]]]) and
// aes_decrypt(input, key[, mode[, padding[, aad]]]); try_aes_decrypt gives NULL on
// errors.
Result<BoundExprPtr> ResolveAes(const std::string& fn, bool encrypt, bool try_mode,
                                Args args) {
  const size_t max = encrypt ? 6 : 5;
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(fn, args.size(), 2, max,
                                      encrypt ? "[2, 3, 4, 5, 6]" : "[2, 3, 4, 5]"));
  if (args.size() < 3) args.push_back(MakeLiteral(Value::String("GCM")));
  if (args.size() < 4) args.push_back(MakeLiteral(Value::String("DEFAULT")));
  if (args.size() < max) args.push_back(MakeLiteral(Value::Binary("")));
  if (encrypt && args.size() < 6) args.push_back(MakeLiteral(Value::Binary("")));
  SPATE_ASSIGN_OR_RETURN(args[0], BinaryArg(fn, args, 0));
  SPATE_ASSIGN_OR_RETURN(args[1], BinaryArg(fn, args, 1));
  SPATE_ASSIGN_OR_RETURN(args[2], fn::ToStringArg(fn, args, 2));
  SPATE_ASSIGN_OR_RETURN(args[3], fn::ToStringArg(fn, args, 3));
  for (size_t k = 4; k < args.size(); ++k) {
    SPATE_ASSIGN_OR_RETURN(args[k], BinaryArg(fn, args, k));
  }
  return MakeScalarCall(
      fn, DataType::Binary(), true, args,
      [fn, encrypt, try_mode](const Cols& c, int64_t n,
                              const EvalContext&) -> Result<ColumnPtr> {
        StringBuilder b(DataType::Binary(), n);
        std::string buf;
        for (int64_t i = 0; i < n; ++i) {
          bool null = false;
          for (size_t k = 0; k < 4; ++k) null = null || c[k]->IsNull(i);
          if (null) {
            b.AppendNull();
            continue;
          }
          std::string_view key = c[1]->GetView(i);
          auto fail = [&](Status s) -> Status {
            if (try_mode) {
              b.AppendNull();
              return Status::OK();
            }
            return s;
          };
          if (key.size() != 16 && key.size() != 24 && key.size() != 32) {
            SPATE_RETURN_IF_ERROR(
                fail(Status::Error("INVALID_PARAMETER_VALUE.AES_KEY_LENGTH",
                                   {{"parameter", "`key`"},
                                    {"functionName", kShownName},
                                    {"actualLength", std::to_string(key.size())}})));
            continue;
          }
          auto mode = ParseMode(fn, c[2]->GetView(i), c[3]->GetView(i));
          if (!mode.ok()) {
            SPATE_RETURN_IF_ERROR(fail(mode.status()));
            continue;
          }
          std::string_view in = c[0]->GetView(i);
          if (encrypt) {
            std::string_view iv = c[4]->IsNull(i) ? std::string_view() : c[4]->GetView(i);
            std::string_view aad =
                c[5]->IsNull(i) ? std::string_view() : c[5]->GetView(i);
            SPATE_RETURN_IF_ERROR(Encrypt(fn, *mode, key, in, iv, aad, &buf));
            b.Append(buf);
            continue;
          }
          std::string_view aad = c[4]->IsNull(i) ? std::string_view() : c[4]->GetView(i);
          if (Decrypt(*mode, key, in, aad, &buf)) {
            b.Append(buf);
          } else {
            SPATE_RETURN_IF_ERROR(fail(
                CryptoError(fn, "the input does not decrypt with this key and mode")));
          }
        }
        return b.Finish();
      },
      nullptr, /*nondeterministic=*/encrypt);
}

}  // namespace

void RegisterAesFunctions(FunctionRegistry& r) {
  r.RegisterScalar("aes_encrypt", [](Args a, const ResolveContext&) {
    return ResolveAes("aes_encrypt", true, false, std::move(a));
  });
  r.RegisterScalar("aes_decrypt", [](Args a, const ResolveContext&) {
    return ResolveAes("aes_decrypt", false, false, std::move(a));
  });
  r.RegisterScalar("try_aes_decrypt", [](Args a, const ResolveContext&) {
    return ResolveAes("try_aes_decrypt", false, true, std::move(a));
  });
}

}  // namespace spate
