// hami/quantity.hpp — exact parsing of Kubernetes resource quantities.
//
// Header-only SDK utility for plugins that read container resources
// ("1", "4000", "4k", "10Gi", "1.5", "100m", "5e3"). It follows the grammar of
// k8s.io/apimachinery/pkg/api/resource:
//
//   quantity     := sign? number suffix
//   number       := digits | digits "." digits? | "." digits
//   suffix       := binarySI | decimalSI | exponent
//   binarySI     := "Ki" | "Mi" | "Gi" | "Ti" | "Pi" | "Ei"
//   decimalSI    := "n" | "u" | "m" | "" | "k" | "M" | "G" | "T" | "P" | "E"
//   exponent     := ("e" | "E") sign? digits
//
// and keeps the value exact (no floating point): a quantity is
// sign × digits × 10^exp10 × 2^exp2. HAMi reads most resources with
// Quantity.AsInt64(), which succeeds only for exact integers inside int64;
// `as_int64()` is that function, so "4k" → 4000, "10Gi" → 10737418240,
// "1.5" → none, "2000m" → 2.
//
// Differences from apimachinery, on purpose: a bare sign ("-", "+") is
// rejected (apimachinery reads it as 0), and exponents outside int32 are
// rejected instead of wrapping.
//
// Threading: values are immutable; all functions are reentrant.
#ifndef HAMI_QUANTITY_HPP
#define HAMI_QUANTITY_HPP

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hami {

// How the quantity was written; apimachinery keeps it to re-serialise.
enum class QuantityFormat { DecimalSI, BinarySI, DecimalExponent };

class Quantity {
 public:
  // Parses `text`; nullopt when it is not a valid quantity (empty, spaces,
  // unknown suffix, no digits, over-long input). May throw std::bad_alloc.
  static std::optional<Quantity> parse(std::string_view text);

  bool is_zero() const noexcept { return digits_.empty(); }
  bool negative() const noexcept { return negative_; }
  QuantityFormat format() const noexcept { return format_; }

  // True when the value is an exact integer, whatever its magnitude
  // ("1.0" and "1500m"·2 are; "1.5" and "100m" are not).
  bool is_integer() const;

  // apimachinery AsInt64(): the value when it is an exact integer that fits
  // in int64, else nullopt.
  std::optional<std::int64_t> as_int64() const;

  // apimachinery Value(): the value rounded up towards +infinity (ceil);
  // nullopt when the result does not fit in int64.
  std::optional<std::int64_t> ceil_int64() const;

 private:
  // Unsigned arbitrary-precision integer in base 2^32, little-endian limbs.
  // Only what exact quantity arithmetic needs.
  class Big {
   public:
    explicit Big(std::string_view decimal_digits) {
      for (char c : decimal_digits) {
        mul_small(10);
        add_small(static_cast<std::uint32_t>(c - '0'));
      }
    }
    void mul_small(std::uint32_t m) {
      std::uint64_t carry = 0;
      for (auto& limb : limbs_) {
        const std::uint64_t v = static_cast<std::uint64_t>(limb) * m + carry;
        limb = static_cast<std::uint32_t>(v);
        carry = v >> 32;
      }
      if (carry != 0)
        limbs_.push_back(static_cast<std::uint32_t>(carry));
    }
    void add_small(std::uint32_t a) {
      std::uint64_t carry = a;
      for (auto& limb : limbs_) {
        if (carry == 0)
          return;
        const std::uint64_t v = static_cast<std::uint64_t>(limb) + carry;
        limb = static_cast<std::uint32_t>(v);
        carry = v >> 32;
      }
      if (carry != 0)
        limbs_.push_back(static_cast<std::uint32_t>(carry));
    }
    // Divides in place and returns the remainder.
    std::uint32_t div_small(std::uint32_t d) {
      std::uint64_t rem = 0;
      for (std::size_t i = limbs_.size(); i-- > 0;) {
        const std::uint64_t cur = (rem << 32) | limbs_[i];
        limbs_[i] = static_cast<std::uint32_t>(cur / d);
        rem = cur % d;
      }
      while (!limbs_.empty() && limbs_.back() == 0)
        limbs_.pop_back();
      return static_cast<std::uint32_t>(rem);
    }
    // The value when it fits in 64 bits.
    std::optional<std::uint64_t> to_u64() const {
      if (limbs_.size() > 2)
        return std::nullopt;
      std::uint64_t v = 0;
      for (std::size_t i = limbs_.size(); i-- > 0;)
        v = (v << 32) | limbs_[i];
      return v;
    }

   private:
    std::vector<std::uint32_t> limbs_;
  };

  // Input longer than this is rejected: real quantities are short, and the
  // exact arithmetic is quadratic in the number of digits.
  static constexpr std::size_t kMaxText = 512;

  // floor(|value|) and whether the fraction was non-zero; nullopt when the
  // integer part certainly exceeds 64 bits.
  struct Split {
    std::uint64_t floor;
    bool has_fraction;
  };
  std::optional<Split> split_abs() const;

  static std::optional<std::int64_t> signed_from(std::uint64_t magnitude, bool negative) {
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (!negative) {
      if (magnitude > kMax)
        return std::nullopt;
      return static_cast<std::int64_t>(magnitude);
    }
    if (magnitude > kMax + 1)
      return std::nullopt;
    if (magnitude == kMax + 1)
      return std::numeric_limits<std::int64_t>::min();
    return -static_cast<std::int64_t>(magnitude);
  }

  std::string digits_;      // significant digits: no leading or trailing zeros; empty = 0
  std::int64_t exp10_ = 0;  // power of ten applied to digits_
  std::int32_t exp2_ = 0;   // power of two (binary suffixes), 0..60
  bool negative_ = false;
  QuantityFormat format_ = QuantityFormat::DecimalSI;
};

inline std::optional<Quantity> Quantity::parse(std::string_view text) {
  if (text.empty() || text.size() > kMaxText)
    return std::nullopt;
  Quantity q;
  std::size_t pos = 0;
  if (text[pos] == '+' || text[pos] == '-') {
    q.negative_ = text[pos] == '-';
    ++pos;
  }
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  const std::size_t int_begin = pos;
  while (pos < text.size() && is_digit(text[pos]))
    ++pos;
  const std::string_view int_part = text.substr(int_begin, pos - int_begin);
  std::string_view frac_part;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    const std::size_t frac_begin = pos;
    while (pos < text.size() && is_digit(text[pos]))
      ++pos;
    frac_part = text.substr(frac_begin, pos - frac_begin);
  }
  if (int_part.empty() && frac_part.empty())
    return std::nullopt;

  const std::string_view suffix = text.substr(pos);
  std::int64_t suffix_exp10 = 0;
  if (suffix.size() == 2 && suffix[1] == 'i') {
    q.format_ = QuantityFormat::BinarySI;
    switch (suffix[0]) {
      case 'K':
        q.exp2_ = 10;
        break;
      case 'M':
        q.exp2_ = 20;
        break;
      case 'G':
        q.exp2_ = 30;
        break;
      case 'T':
        q.exp2_ = 40;
        break;
      case 'P':
        q.exp2_ = 50;
        break;
      case 'E':
        q.exp2_ = 60;
        break;
      default:
        return std::nullopt;
    }
  } else if (suffix.size() <= 1) {
    q.format_ = QuantityFormat::DecimalSI;
    if (!suffix.empty()) {
      switch (suffix[0]) {
        case 'n':
          suffix_exp10 = -9;
          break;
        case 'u':
          suffix_exp10 = -6;
          break;
        case 'm':
          suffix_exp10 = -3;
          break;
        case 'k':
          suffix_exp10 = 3;
          break;
        case 'M':
          suffix_exp10 = 6;
          break;
        case 'G':
          suffix_exp10 = 9;
          break;
        case 'T':
          suffix_exp10 = 12;
          break;
        case 'P':
          suffix_exp10 = 15;
          break;
        case 'E':
          suffix_exp10 = 18;
          break;
        default:
          return std::nullopt;
      }
    }
  } else if (suffix[0] == 'e' || suffix[0] == 'E') {
    q.format_ = QuantityFormat::DecimalExponent;
    std::size_t i = 1;
    bool exp_negative = false;
    if (suffix[i] == '+' || suffix[i] == '-') {
      exp_negative = suffix[i] == '-';
      ++i;
    }
    if (i >= suffix.size())
      return std::nullopt;
    std::int64_t e = 0;
    for (; i < suffix.size(); ++i) {
      if (!is_digit(suffix[i]))
        return std::nullopt;
      e = e * 10 + (suffix[i] - '0');
      if (e > static_cast<std::int64_t>(std::numeric_limits<std::int32_t>::max()) + 1) {
        return std::nullopt;
      }
    }
    suffix_exp10 = exp_negative ? -e : e;
    if (suffix_exp10 > std::numeric_limits<std::int32_t>::max())
      return std::nullopt;
  } else {
    return std::nullopt;
  }

  // Significant digits: int part then fraction, leading zeros dropped,
  // trailing zeros folded into the exponent.
  std::string all;
  all.reserve(int_part.size() + frac_part.size());
  all.append(int_part);
  all.append(frac_part);
  std::size_t first = all.find_first_not_of('0');
  if (first == std::string::npos) {
    q.negative_ = false;  // -0 is 0
    q.exp10_ = 0;
    q.exp2_ = 0;
    return q;
  }
  std::size_t last = all.find_last_not_of('0');
  q.digits_ = all.substr(first, last - first + 1);
  q.exp10_ = suffix_exp10 - static_cast<std::int64_t>(frac_part.size()) +
             static_cast<std::int64_t>(all.size() - 1 - last);
  return q;
}

inline std::optional<Quantity::Split> Quantity::split_abs() const {
  if (digits_.empty())
    return Split{0, false};
  const auto len = static_cast<std::int64_t>(digits_.size());
  // value < 10^len × 10^exp10 × 2^exp2 and 2^exp2 < 10^(exp2/3 + 1); more
  // than 20 integer digits never fits in 64 bits.
  if (exp10_ >= 0) {
    if (len + exp10_ + exp2_ * 30103 / 100000 > 21)
      return std::nullopt;
    Big v(digits_);
    for (std::int32_t i = 0; i < exp2_; ++i)
      v.mul_small(2);
    for (std::int64_t i = 0; i < exp10_; ++i)
      v.mul_small(10);
    auto u = v.to_u64();
    if (!u)
      return std::nullopt;
    return Split{*u, false};
  }
  const std::int64_t k = -exp10_;
  // digits × 2^exp2 < 10^(len + exp2/3 + 1): when k exceeds that, the value
  // is below one and non-zero.
  if (k > len + exp2_ / 3 + 1)
    return Split{0, true};
  Big v(digits_);
  for (std::int32_t i = 0; i < exp2_; ++i)
    v.mul_small(2);
  bool fraction = false;
  for (std::int64_t i = 0; i < k; ++i)
    fraction = (v.div_small(10) != 0) || fraction;
  auto u = v.to_u64();
  if (!u)
    return std::nullopt;
  return Split{*u, fraction};
}

inline bool Quantity::is_integer() const {
  if (digits_.empty() || exp10_ >= 0)
    return true;
  const std::int64_t k = -exp10_;
  const auto len = static_cast<std::int64_t>(digits_.size());
  // 5^k must divide the digits, so 5^k <= digits < 10^len.
  if (k > len * 143 / 100 + 1)
    return false;
  Big v(digits_);
  for (std::int32_t i = 0; i < exp2_; ++i)
    v.mul_small(2);
  for (std::int64_t i = 0; i < k; ++i) {
    if (v.div_small(10) != 0)
      return false;
  }
  return true;
}

inline std::optional<std::int64_t> Quantity::as_int64() const {
  const auto s = split_abs();
  if (!s || s->has_fraction)
    return std::nullopt;
  return signed_from(s->floor, negative_);
}

inline std::optional<std::int64_t> Quantity::ceil_int64() const {
  const auto s = split_abs();
  if (!s)
    return std::nullopt;
  std::uint64_t magnitude = s->floor;
  if (s->has_fraction && !negative_) {
    if (magnitude == std::numeric_limits<std::uint64_t>::max())
      return std::nullopt;
    ++magnitude;  // ceil of a positive fraction rounds away from zero
  }
  // ceil of a negative fraction rounds towards zero: -floor(|x|).
  return signed_from(magnitude, negative_);
}

}  // namespace hami

#endif  // HAMI_QUANTITY_HPP
