// Stand-in for imgui.h (declarations that Tsukiyomi's src/main.cpp uses), for bench/realcode only.
// Modelled on Dear ImGui 1.91.x, docking branch (void* ImTextureID, 6-argument Image,
// DockSpaceOverViewport(ImGuiID, const ImGuiViewport*, ...)).
#pragma once

#include <stddef.h>

#define IMGUI_VERSION     "1.91.0"
#define IMGUI_VERSION_NUM 19100
#define IMGUI_HAS_DOCK    1

#ifndef IMGUI_API
#define IMGUI_API
#endif
#ifndef IMGUI_IMPL_API
#define IMGUI_IMPL_API IMGUI_API
#endif

#if defined(__clang__) || defined(__GNUC__)
#define IM_FMTARGS(FMT) __attribute__((format(printf, FMT, FMT + 1)))
#else
#define IM_FMTARGS(FMT)
#endif

#define IMGUI_CHECKVERSION()                                                  \
  ImGui::DebugCheckVersionAndDataLayout(                                      \
      IMGUI_VERSION, sizeof(ImGuiIO), sizeof(ImGuiStyle), sizeof(ImVec2),     \
      sizeof(ImVec4), sizeof(ImDrawVert), sizeof(ImDrawIdx))

// Forward declarations
struct ImDrawData;
struct ImFontAtlas;
struct ImGuiContext;
struct ImGuiViewport;
struct ImGuiWindowClass;

// Scalar typedefs
typedef unsigned int   ImU32;
typedef unsigned int   ImGuiID;
typedef unsigned short ImDrawIdx;
typedef void*          ImTextureID;

typedef int ImGuiCond;
typedef int ImGuiMouseButton;
typedef int ImGuiConfigFlags;
typedef int ImGuiBackendFlags;
typedef int ImGuiDockNodeFlags;
typedef int ImGuiHoveredFlags;
typedef int ImGuiInputTextFlags;
typedef int ImGuiSliderFlags;
typedef int ImGuiWindowFlags;

struct ImVec2 {
  float x, y;
  constexpr ImVec2() : x(0.0f), y(0.0f) {}
  constexpr ImVec2(float _x, float _y) : x(_x), y(_y) {}
};

struct ImVec4 {
  float x, y, z, w;
  constexpr ImVec4() : x(0.0f), y(0.0f), z(0.0f), w(0.0f) {}
  constexpr ImVec4(float _x, float _y, float _z, float _w)
      : x(_x), y(_y), z(_z), w(_w) {}
};

struct ImDrawVert {
  ImVec2 pos;
  ImVec2 uv;
  ImU32  col;
};

struct ImGuiStyle {
  float  Alpha;
  ImVec2 WindowPadding;
  float  WindowRounding;
};

enum ImGuiConfigFlags_ {
  ImGuiConfigFlags_None                 = 0,
  ImGuiConfigFlags_NavEnableKeyboard    = 1 << 0,
  ImGuiConfigFlags_NavEnableGamepad     = 1 << 1,
  ImGuiConfigFlags_NavEnableSetMousePos = 1 << 2,
  ImGuiConfigFlags_NavNoCaptureKeyboard = 1 << 3,
  ImGuiConfigFlags_NoMouse              = 1 << 4,
  ImGuiConfigFlags_NoMouseCursorChange  = 1 << 5,
  ImGuiConfigFlags_DockingEnable        = 1 << 6,
  ImGuiConfigFlags_ViewportsEnable      = 1 << 10,
};

enum ImGuiCond_ {
  ImGuiCond_None         = 0,
  ImGuiCond_Always       = 1 << 0,
  ImGuiCond_Once         = 1 << 1,
  ImGuiCond_FirstUseEver = 1 << 2,
  ImGuiCond_Appearing    = 1 << 3,
};

enum ImGuiMouseButton_ {
  ImGuiMouseButton_Left   = 0,
  ImGuiMouseButton_Right  = 1,
  ImGuiMouseButton_Middle = 2,
  ImGuiMouseButton_COUNT  = 5
};

struct ImGuiIO {
  ImGuiConfigFlags  ConfigFlags;
  ImGuiBackendFlags BackendFlags;
  ImVec2            DisplaySize;
  float             DeltaTime;
  float             MouseWheel;
  float             MouseWheelH;
  float             Framerate;
};

namespace ImGui {
// Context creation and access
IMGUI_API ImGuiContext* CreateContext(ImFontAtlas* shared_font_atlas = NULL);
IMGUI_API void          DestroyContext(ImGuiContext* ctx = NULL);
IMGUI_API ImGuiIO&      GetIO();

// Main
IMGUI_API void        NewFrame();
IMGUI_API void        Render();
IMGUI_API ImDrawData* GetDrawData();

// Styles
IMGUI_API void StyleColorsDark(ImGuiStyle* dst = NULL);

// Windows
IMGUI_API bool Begin(const char* name, bool* p_open = NULL, ImGuiWindowFlags flags = 0);
IMGUI_API void End();
IMGUI_API void SetNextWindowSize(const ImVec2& size, ImGuiCond cond = 0);

// Content region / cursor / layout
IMGUI_API ImVec2 GetContentRegionAvail();
IMGUI_API void   SetCursorPos(const ImVec2& local_pos);
IMGUI_API void   Separator();
IMGUI_API void   SameLine(float offset_from_start_x = 0.0f, float spacing = -1.0f);

// Widgets: text
IMGUI_API void Text(const char* fmt, ...) IM_FMTARGS(1);
IMGUI_API void TextColored(const ImVec4& col, const char* fmt, ...) IM_FMTARGS(2);

// Widgets: main
IMGUI_API bool Button(const char* label, const ImVec2& size = ImVec2(0, 0));
IMGUI_API bool Checkbox(const char* label, bool* v);
IMGUI_API void Image(ImTextureID user_texture_id, const ImVec2& image_size,
                     const ImVec2& uv0 = ImVec2(0, 0), const ImVec2& uv1 = ImVec2(1, 1),
                     const ImVec4& tint_col = ImVec4(1, 1, 1, 1),
                     const ImVec4& border_col = ImVec4(0, 0, 0, 0));

// Widgets: sliders / input
IMGUI_API bool SliderFloat(const char* label, float* v, float v_min, float v_max,
                           const char* format = "%.3f", ImGuiSliderFlags flags = 0);
IMGUI_API bool InputInt(const char* label, int* v, int step = 1, int step_fast = 100,
                        ImGuiInputTextFlags flags = 0);

// Docking
IMGUI_API ImGuiID DockSpaceOverViewport(ImGuiID dockspace_id = 0,
                                        const ImGuiViewport* viewport = NULL,
                                        ImGuiDockNodeFlags flags = 0,
                                        const ImGuiWindowClass* window_class = NULL);

// Viewports
IMGUI_API ImGuiViewport* GetMainViewport();

// Item / widget utilities
IMGUI_API bool IsItemHovered(ImGuiHoveredFlags flags = 0);

// Inputs: mouse
IMGUI_API bool   IsMouseDown(ImGuiMouseButton button);
IMGUI_API ImVec2 GetMouseDragDelta(ImGuiMouseButton button = 0, float lock_threshold = -1.0f);
IMGUI_API void   ResetMouseDragDelta(ImGuiMouseButton button = 0);

// Debug utilities
IMGUI_API bool DebugCheckVersionAndDataLayout(const char* version_str, size_t sz_io,
                                              size_t sz_style, size_t sz_vec2,
                                              size_t sz_vec4, size_t sz_drawvert,
                                              size_t sz_drawidx);
} // namespace ImGui
