// Copyright spate authors.
// Spark's XPath functions: xpath (ARRAY<STRING> of node values), xpath_string,
// xpath_boolean, xpath_number / xpath_double, xpath_float, xpath_long, xpath_int and
// xpath_short over an XML string and a constant XPath 1.0 path. Documents are parsed and
// paths evaluated with libxml2 (Debian's libxml2); the conversions of the result follow
// Spark, which evaluates with the JDK's XPath and returns:
//   - xpath: each node's DOM node value: the text of text, CDATA, comment and processing-
//     instruction nodes, an attribute's value, NULL for elements and the document; a
//     result that is no node set fails;
//   - xpath_string: the XPath string value, numbers written as the JDK writes them (plain
//     decimals of Java's shortest digits: "3", "0.3333333333333333",
//     "100000000000000000000", "NaN", "Infinity");
//   - numbers: the XPath number value, a string or a node's text read as the JDK reads it
//     (optional '-', digits and '.', surrounded by XML white space: "+1" and "1e3" are
//     NaN), narrowed as Java's Double.intValue() / longValue() / shortValue() /
//     floatValue() (NaN -> 0, saturating, the short from the int by wrapping);
//   - xpath_boolean: the XPath boolean value.
// A NULL or empty document or path gives NULL. The path must be constant
// (DATATYPE_MISMATCH.NON_FOLDABLE_INPUT); it is compiled once per batch. External
// entities and network access are never loaded.

#include <libxml/entities.h>
#include <libxml/hash.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spate/columnar/builder.h"
#include "spate/compute/coercion.h"
#include "spate/compute/function_args.h"
#include "spate/compute/function_registry.h"
#include "spate/compute/string_kernels.h"
#include "spate/types/format.h"

namespace spate {

namespace {

using Args = std::vector<BoundExprPtr>;
using Cols = std::vector<ColumnPtr>;

enum class XPathResult : uint8_t { kNodeValues, kString, kBoolean, kNumber };

// libxml2 reports errors through handlers (per thread); spate reports its own.
void IgnoreXmlError(void* /*ctx*/, xmlErrorPtr /*error*/) {}

void InitLibXml() {
  static const bool once = [] {
    xmlInitParser();
    return true;
  }();
  (void)once;
  xmlSetStructuredErrorFunc(nullptr, IgnoreXmlError);
}

struct DocFree {
  void operator()(xmlDoc* d) const { xmlFreeDoc(d); }
};
struct ContextFree {
  void operator()(xmlXPathContext* c) const { xmlXPathFreeContext(c); }
};
struct CompFree {
  void operator()(xmlXPathCompExpr* c) const { xmlXPathFreeCompExpr(c); }
};
struct ObjectFree {
  void operator()(xmlXPathObject* o) const { xmlXPathFreeObject(o); }
};
struct XmlCharFree {
  void operator()(xmlChar* s) const { xmlFree(s); }
};

using DocPtr = std::unique_ptr<xmlDoc, DocFree>;
using ObjectPtr = std::unique_ptr<xmlXPathObject, ObjectFree>;
using XmlString = std::unique_ptr<xmlChar, XmlCharFree>;

std::string_view View(const xmlChar* s) {
  return s ? std::string_view(reinterpret_cast<const char*>(s)) : std::string_view();
}

// XML white space (the JDK trims these before reading a number).
bool IsXmlSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The JDK's string -> number of XPath: after trimming XML white space, only '-', '.' and
// digits may appear, and the rest must read as a Java double; anything else is NaN.
double JavaXPathNumber(std::string_view s) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  while (!s.empty() && IsXmlSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsXmlSpace(s.back())) s.remove_suffix(1);
  if (s.empty()) return nan;
  size_t i = 0;
  if (s[0] == '-') i = 1;
  size_t digits = 0, dots = 0;
  for (size_t k = i; k < s.size(); ++k) {
    if (s[k] >= '0' && s[k] <= '9') {
      ++digits;
    } else if (s[k] == '.') {
      ++dots;
    } else {
      return nan;  // a second '-' or any other character
    }
  }
  if (digits == 0 || dots > 1) return nan;
  std::string text(s);
  return std::strtod(text.c_str(), nullptr);
}

// The JDK's number -> string of XPath: Java's shortest digits written as a plain decimal
// (no exponent, no trailing ".0"), "NaN", "Infinity", "-Infinity"; -0 is "0".
std::string JavaXPathString(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  if (v == 0) return "0";
  // Java's Double.toString: d.ddd[E[-]x]: its digits and decimal exponent.
  std::string java = FormatDouble(v);
  std::string sign;
  if (java[0] == '-') {
    sign = "-";
    java.erase(0, 1);
  }
  int exponent = 0;
  size_t e = java.find('E');
  if (e != std::string::npos) {
    exponent = std::stoi(java.substr(e + 1));
    java.resize(e);
  }
  size_t dot = java.find('.');
  std::string digits = java.substr(0, dot) + java.substr(dot + 1);
  int point = static_cast<int>(dot) + exponent;  // digits before the decimal point
  // Leading zeros ("0.001" -> "0001") move the point.
  size_t lead = 0;
  while (lead + 1 < digits.size() && digits[lead] == '0') ++lead;
  digits.erase(0, lead);
  point -= static_cast<int>(lead);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = sign;
  if (point <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-point), '0');
    out += digits;
  } else if (static_cast<size_t>(point) >= digits.size()) {
    out += digits;
    out.append(static_cast<size_t>(point) - digits.size(), '0');
  } else {
    out += digits.substr(0, static_cast<size_t>(point));
    out += '.';
    out += digits.substr(static_cast<size_t>(point));
  }
  return out;
}

// The XPath string value of a result, numbers as the JDK writes them.
std::string StringValue(xmlXPathObject* o) {
  if (o->type == XPATH_NUMBER) return JavaXPathString(o->floatval);
  XmlString s(xmlXPathCastToString(o));
  return std::string(View(s.get()));
}

// The XPath number value of a result, strings read as the JDK reads them.
double NumberValue(xmlXPathObject* o) {
  switch (o->type) {
    case XPATH_NUMBER:
      return o->floatval;
    case XPATH_BOOLEAN:
      return o->boolval ? 1.0 : 0.0;
    default:
      return JavaXPathNumber(StringValue(o));
  }
}

// The DOM node value of a node: NULL (nullopt) for elements, documents and the like.
std::optional<std::string> NodeValue(xmlNode* node) {
  switch (node->type) {
    case XML_TEXT_NODE:
    case XML_CDATA_SECTION_NODE:
    case XML_COMMENT_NODE:
    case XML_PI_NODE:
      return std::string(View(node->content));
    case XML_ATTRIBUTE_NODE: {
      XmlString s(xmlNodeGetContent(node));
      return std::string(View(s.get()));
    }
    case XML_NAMESPACE_DECL: {
      auto* ns = reinterpret_cast<xmlNs*>(node);
      return std::string(View(ns->href));
    }
    default:
      return std::nullopt;
  }
}

bool IsText(const xmlNode* node) {
  return node && (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE);
}

// A text or CDATA node right after another: part of the XPath text node that one starts.
bool ContinuesText(const xmlNode* node) { return IsText(node) && IsText(node->prev); }

// Java's narrowing of a double: NaN -> 0, saturating at the type's bounds.
template <typename T>
T Saturate(double v) {
  if (std::isnan(v)) return 0;
  if (v >= static_cast<double>(std::numeric_limits<T>::max()))
    return std::numeric_limits<T>::max();
  if (v <= static_cast<double>(std::numeric_limits<T>::min()))
    return std::numeric_limits<T>::min();
  return static_cast<T>(v);
}

Status Failed(std::string message) {
  return Status::Error("SPATE_XPATH_FAILED", {{"msg", std::move(message)}});
}

std::string Qualified(const xmlNs* ns, const xmlChar* name) {
  std::string q;
  if (ns && ns->prefix) {
    q.append(View(ns->prefix));
    q.push_back(':');
  }
  q.append(View(name));
  return q;
}

// The DOM the JDK builds in Spark is not namespace-aware: a prefixed name is just a name
// ("p:x"). libxml2 always resolves namespaces; this undoes it on the parsed tree, so that
// paths see the names as written. The declarations go (the JDK's XPath does not show
// xmlns attributes as attributes either). (Children first: a declaration is freed only
// after every use of it is gone.)
void DropNamespaces(xmlNode* node) {
  for (; node; node = node->next) {
    if (node->type != XML_ELEMENT_NODE) continue;
    DropNamespaces(node->children);
    if (node->ns) {
      if (node->ns->prefix) {
        std::string q = Qualified(node->ns, node->name);
        xmlNodeSetName(node, reinterpret_cast<const xmlChar*>(q.c_str()));
      }
      node->ns = nullptr;
    }
    for (xmlAttr* a = node->properties; a; a = a->next) {
      if (!a->ns) continue;
      if (a->ns->prefix) {
        std::string q = Qualified(a->ns, a->name);
        xmlNodeSetName(reinterpret_cast<xmlNode*>(a),
                       reinterpret_cast<const xmlChar*>(q.c_str()));
      }
      a->ns = nullptr;
    }
    if (node->nsDef) {
      xmlFreeNsList(node->nsDef);
      node->nsDef = nullptr;
    }
  }
}

// Replaces each entity reference under `parent` by its content when the entity is
// internal (as substitution would), drops it otherwise (an external entity is never read,
// as in Spark), and merges the text nodes that end up adjacent.
void ExpandEntityReferences(xmlDoc* doc, xmlNode* parent) {
  xmlNode* node = parent->children;
  while (node) {
    xmlNode* next = node->next;
    if (node->type == XML_ENTITY_REF_NODE) {
      xmlNode* before = node->prev;
      xmlEntity* ent = xmlGetDocEntity(doc, node->name);
      if (ent && ent->etype == XML_INTERNAL_GENERAL_ENTITY && ent->children) {
        xmlNode* copy = xmlDocCopyNodeList(doc, ent->children);
        for (xmlNode* c = copy; c;) {
          xmlNode* c_next = c->next;
          c->next = c->prev = nullptr;
          xmlAddPrevSibling(node, c);  // may merge c into an adjacent text node
          c = c_next;
        }
      }
      xmlUnlinkNode(node);
      xmlFreeNode(node);
      next = before ? before : parent->children;  // rescan what was inserted
    } else if (node->type == XML_TEXT_NODE && next && next->type == XML_TEXT_NODE) {
      xmlTextMerge(node, next);
      next = node;
    } else if (node->type == XML_ELEMENT_NODE) {
      ExpandEntityReferences(doc, node);
    }
    node = next;
  }
}

void NoteExternalEntity(void* payload, void* data, const xmlChar* /*name*/) {
  const auto* ent = static_cast<const xmlEntity*>(payload);
  if (ent->etype != XML_INTERNAL_GENERAL_ENTITY &&
      ent->etype != XML_INTERNAL_PARAMETER_ENTITY &&
      ent->etype != XML_INTERNAL_PREDEFINED_ENTITY) {
    *static_cast<bool*>(data) = true;
  }
}

// True when the document declares entities, all of them internal.
bool OnlyInternalEntities(const xmlDoc& doc) {
  const xmlDtd* dtd = doc.intSubset;
  if (!dtd || (!dtd->entities && !dtd->pentities)) return false;
  bool external = false;
  if (dtd->entities) {
    xmlHashScan(static_cast<xmlHashTablePtr>(dtd->entities), NoteExternalEntity,
                &external);
  }
  if (dtd->pentities) {
    xmlHashScan(static_cast<xmlHashTablePtr>(dtd->pentities), NoteExternalEntity,
                &external);
  }
  return !external;
}

DocPtr ReadDocument(std::string_view xml, int options) {
  return DocPtr(
      xmlReadMemory(xml.data(), static_cast<int>(xml.size()), nullptr, nullptr,
                    options | XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING));
}

// Parses a document as Spark's JDK parser does: internal entities expanded (the document
// is read again with substitution when it declares entities and all are internal: libxml2
// would load external ones while substituting), external ones never loaded, no network,
// no namespaces. nullptr for a document that is not well-formed.
DocPtr ParseDocument(std::string_view xml) {
  DocPtr doc = ReadDocument(xml, 0);
  if (!doc) return nullptr;
  if (OnlyInternalEntities(*doc)) {
    doc = ReadDocument(xml, XML_PARSE_NOENT);
    if (!doc) return nullptr;
  } else if (doc->intSubset) {
    ExpandEntityReferences(doc.get(), reinterpret_cast<xmlNode*>(doc.get()));
  }
  DropNamespaces(xmlDocGetRootElement(doc.get()));
  return doc;
}

// xpath's result must be a node set, as the JDK's NODESET evaluation requires.
Status NotANodeSet(const xmlXPathObject& r, std::string_view xml) {
  const char* kind = r.type == XPATH_NUMBER    ? "#NUMBER"
                     : r.type == XPATH_STRING  ? "#STRING"
                     : r.type == XPATH_BOOLEAN ? "#BOOLEAN"
                                               : "#UNKNOWN";
  return Failed(std::string("Invalid XML document: Can not convert ") + kind +
                " to a NodeList!\n" + std::string(xml));
}

// One call's evaluation state over a batch: the compiled path (recompiled only when the
// path text changes) and the document of the last result, whose nodes point into it.
class XPathEvaluator {
 public:
  XPathEvaluator() { InitLibXml(); }

  // Evaluates `path` over `xml` (neither empty); the result is valid until the next call.
  Result<ObjectPtr> Eval(std::string_view xml, std::string_view path) {
    if (!comp_ || path != path_) {
      path_.assign(path);
      comp_.reset(xmlXPathCompile(reinterpret_cast<const xmlChar*>(path_.c_str())));
      if (!comp_) return Failed("Invalid XPath '" + path_ + "'");
    }
    DocPtr doc = ParseDocument(xml);
    if (!doc) return Failed("Error loading expression '" + path_ + "'");
    std::unique_ptr<xmlXPathContext, ContextFree> ctx(xmlXPathNewContext(doc.get()));
    ctx->node = reinterpret_cast<xmlNode*>(doc.get());  // the context node: the document
    ObjectPtr result(xmlXPathCompiledEval(comp_.get(), ctx.get()));
    if (!result) return Failed("Invalid XPath '" + path_ + "'");
    doc_ = std::move(doc);
    return result;
  }

 private:
  std::string path_;
  std::unique_ptr<xmlXPathCompExpr, CompFree> comp_;
  DocPtr doc_;
};

// Rows whose document or path is NULL or empty give NULL.
bool Evaluable(const Column& xml, const Column& path, int64_t i) {
  return !xml.IsNull(i) && !path.IsNull(i) && !xml.GetView(i).empty() &&
         !path.GetView(i).empty();
}

// A call over a batch into `out`: `append(out, result, row)` for each row with a document
// and a path, NULL for the others.
template <typename Builder, typename Append>
Result<ColumnPtr> EvalRows(const Cols& c, int64_t n, Builder out, const Append& append) {
  XPathEvaluator eval;
  for (int64_t i = 0; i < n; ++i) {
    if (!Evaluable(*c[0], *c[1], i)) {
      out.AppendNull();
      continue;
    }
    SPATE_ASSIGN_OR_RETURN(ObjectPtr r, eval.Eval(c[0]->GetView(i), c[1]->GetView(i)));
    SPATE_RETURN_IF_ERROR(append(out, *r, i));
  }
  return out.Finish();
}

// Java's narrowing of a double to T (Double.intValue() / longValue() / shortValue() /
// floatValue()): NaN -> 0, saturating; a short is the saturated int wrapped to 16 bits.
template <typename T>
T JavaNarrow(double v) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return static_cast<int16_t>(static_cast<uint16_t>(Saturate<int32_t>(v)));
  } else {
    return Saturate<T>(v);
  }
}

template <typename T>
Result<ColumnPtr> EvalNumbers(const DataTypePtr& type, const Cols& c, int64_t n) {
  return EvalRows(c, n, FixedWidthBuilder<T>(type, n),
                  [](FixedWidthBuilder<T>& out, xmlXPathObject& r, int64_t) {
                    out.Append(JavaNarrow<T>(NumberValue(&r)));
                    return Status::OK();
                  });
}

Result<ColumnPtr> EvalXPath(XPathResult kind, const DataTypePtr& type, const Cols& c,
                            int64_t n) {
  switch (kind) {
    case XPathResult::kNodeValues:
      return EvalRows(c, n, fn::StringArrayBuilder(n, /*contains_null=*/true),
                      [&c](fn::StringArrayBuilder& out, xmlXPathObject& r, int64_t i) {
                        if (r.type != XPATH_NODESET)
                          return NotANodeSet(r, c[0]->GetView(i));
                        const xmlNodeSet* set = r.nodesetval;
                        for (int k = 0; set && k < set->nodeNr; ++k) {
                          // XPath's data model has no CDATA: a run of adjacent text and
                          // CDATA nodes is one text node, which the JDK's XPath returns
                          // as the run's first DOM node.
                          if (ContinuesText(set->nodeTab[k])) continue;
                          std::optional<std::string> v = NodeValue(set->nodeTab[k]);
                          if (v) {
                            out.AddItem(*v);
                          } else {
                            out.AddNullItem();
                          }
                        }
                        out.EndRow();
                        return Status::OK();
                      });
    case XPathResult::kString:
      return EvalRows(c, n, StringBuilder(DataType::String(), n, n * 8),
                      [](StringBuilder& out, xmlXPathObject& r, int64_t) {
                        out.Append(StringValue(&r));
                        return Status::OK();
                      });
    case XPathResult::kBoolean:
      return EvalRows(c, n, BooleanBuilder(),
                      [](BooleanBuilder& out, xmlXPathObject& r, int64_t) {
                        out.Append(xmlXPathCastToBoolean(&r) != 0);
                        return Status::OK();
                      });
    case XPathResult::kNumber:
      break;
  }
  switch (type->id()) {
    case TypeId::kShort:
      return EvalNumbers<int16_t>(type, c, n);
    case TypeId::kInt:
      return EvalNumbers<int32_t>(type, c, n);
    case TypeId::kLong:
      return EvalNumbers<int64_t>(type, c, n);
    case TypeId::kFloat:
      return EvalNumbers<float>(type, c, n);
    default:
      return EvalNumbers<double>(type, c, n);
  }
}

Result<BoundExprPtr> ResolveXPath(const std::string& name, XPathResult kind,
                                  const DataTypePtr& type, Args args) {
  SPATE_RETURN_IF_ERROR(fn::CheckArgs(name, args.size(), 2, 2, "2"));
  if (!args[1]->IsConstant()) {
    return fn::NonFoldableInput(fn::CallSql(name, args), "path", "STRING", *args[1]);
  }
  // Strings only (Spark casts nothing else to STRING here); a NULL literal is a STRING.
  for (size_t k = 0; k < 2; ++k) {
    const TypeId t = args[k]->type()->id();
    if (t == TypeId::kNull) {
      SPATE_ASSIGN_OR_RETURN(args[k], ImplicitCast(args[k], DataType::String()));
    } else if (t != TypeId::kString) {
      return fn::UnexpectedType(name, args, k, "\"STRING\"");
    }
  }
  return MakeScalarCall(
      name, type, true, args,
      [kind, type](const Cols& c, int64_t n, const EvalContext&) -> Result<ColumnPtr> {
        return EvalXPath(kind, type, c, n);
      });
}

}  // namespace

void RegisterXPathFunctions(FunctionRegistry& r) {
  struct Entry {
    const char* name;
    XPathResult kind;
    DataTypePtr type;
  };
  const Entry entries[] = {
      {"xpath", XPathResult::kNodeValues, DataType::Array(DataType::String(), true)},
      {"xpath_string", XPathResult::kString, DataType::String()},
      {"xpath_boolean", XPathResult::kBoolean, DataType::Boolean()},
      {"xpath_number", XPathResult::kNumber, DataType::Double()},
      {"xpath_double", XPathResult::kNumber, DataType::Double()},
      {"xpath_float", XPathResult::kNumber, DataType::Float()},
      {"xpath_long", XPathResult::kNumber, DataType::Long()},
      {"xpath_int", XPathResult::kNumber, DataType::Int()},
      {"xpath_short", XPathResult::kNumber, DataType::Short()},
  };
  for (const Entry& e : entries) {
    r.RegisterScalar(e.name, [name = std::string(e.name), kind = e.kind, type = e.type](
                                 Args a, const ResolveContext&) {
      return ResolveXPath(name, kind, type, std::move(a));
    });
  }
}

}  // namespace spate
