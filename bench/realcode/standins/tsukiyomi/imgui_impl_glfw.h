// Stand-in for imgui_impl_glfw.h (declarations that Tsukiyomi's src/main.cpp uses), for bench/realcode only.
#pragma once
#include "imgui.h"

struct GLFWwindow;

IMGUI_IMPL_API bool ImGui_ImplGlfw_InitForOpenGL(GLFWwindow* window, bool install_callbacks);
IMGUI_IMPL_API void ImGui_ImplGlfw_Shutdown();
IMGUI_IMPL_API void ImGui_ImplGlfw_NewFrame();
