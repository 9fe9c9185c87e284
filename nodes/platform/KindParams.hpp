#pragma once
// A registered node kind's own parameter section, `platform.node.<kind>`, held without NodeConfig knowing its
// type: the parser, the writer and `nafsim params` walk it through the same describe() table as every config
// struct (simcore/config/Schema.hpp). The kind reads it back with as<T>().

#include "simcore/config/Schema.hpp"

#include <memory>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <utility>

namespace nafsim::nodes {

class KindParams {
public:
  /// A section holding `defaults` (a config struct with describe()).
  template <class T> static KindParams of(T defaults)
  {
    KindParams p;
    p.held_ = std::make_unique<Held<T>>(std::move(defaults));
    return p;
  }
  KindParams() = default;
  KindParams(const KindParams& o) : held_(o.held_ ? o.held_->clone() : nullptr) {}
  KindParams& operator=(const KindParams& o)
  {
    held_ = o.held_ ? o.held_->clone() : nullptr;
    return *this;
  }
  KindParams(KindParams&&) noexcept            = default;
  KindParams& operator=(KindParams&&) noexcept = default;

  template <class V> void describe(V& v)
  {
    if (held_)
      held_->describe(v);
  }
  /// The section's own cross-field check (its struct's check(), when it has one), run by the parser as every config
  /// struct's is once its fields are read.
  config::FieldProblem check() const { return held_ ? held_->check() : config::FieldProblem{}; }
  /// The section as the kind that registered it made it (T is that kind's config struct; a logic error if not).
  template <class T> const T& as() const { return held<T>().value; }
  template <class T> T& as() { return const_cast<Held<T>&>(std::as_const(*this).held<T>()).value; }

private:
  struct Base {
    virtual ~Base()                              = default;
    virtual std::unique_ptr<Base> clone() const  = 0;
    virtual void describe(config::DescribeProbe&) = 0;
    virtual void describe(config::Reader&)        = 0;
    virtual void describe(config::Writer&)        = 0;
    virtual void describe(config::Lister&)        = 0;
    virtual config::FieldProblem check() const    = 0;
  };
  template <class T> struct Held final : Base {
    explicit Held(T v) : value(std::move(v)) {}
    std::unique_ptr<Base> clone() const override { return std::make_unique<Held>(value); }
    void describe(config::DescribeProbe& v) override { value.describe(v); }
    void describe(config::Reader& v) override { value.describe(v); }
    void describe(config::Writer& v) override { value.describe(v); }
    void describe(config::Lister& v) override { value.describe(v); }
    config::FieldProblem check() const override
    {
      if constexpr (config::SelfChecked<T>)
        return value.check();
      else
        return {};
    }
    T value;
  };
  template <class T> const Held<T>& held() const
  {
    auto const* h = dynamic_cast<const Held<T>*>(held_.get());
    if (!h)
      throw std::logic_error(std::string("a parameter section read as another type: ") + typeid(T).name());
    return *h;
  }
  std::unique_ptr<Base> held_;
};

} // namespace nafsim::nodes
